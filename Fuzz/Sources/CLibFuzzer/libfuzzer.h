// libFuzzer's driver, for a program that has a main of its own (-sanitize=fuzzer links it).
// See https://llvm.org/docs/LibFuzzer.html#using-libfuzzer-as-a-library
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*UserCb)(const uint8_t *Data, size_t Size));
