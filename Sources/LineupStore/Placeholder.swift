// Placeholder: replaced as the module is built.
