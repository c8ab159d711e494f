#ifndef LINEUP_CLIBXML2_SHIM_H
#define LINEUP_CLIBXML2_SHIM_H

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlreader.h>

#endif
