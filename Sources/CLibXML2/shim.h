#ifndef LINEUP_CLIBXML2_SHIM_H
#define LINEUP_CLIBXML2_SHIM_H

/*
 * Debian's libxml2 is built with ICU, so <libxml/encoding.h> includes the system's
 * <unicode/ucnv.h>. Foundation on Linux ships its own ICU headers (_FoundationICU), and a
 * Swift file that imports both Foundation and this module then fails with "'UErrorCode' has
 * different definitions in different modules". Nothing of Lineup uses libxml2's ICU
 * converters, so the ICU part of libxml2's headers is turned off: it only removes two
 * trailing pointer fields from xmlCharEncodingHandler, a struct Lineup never allocates or
 * embeds (libxml2 hands it out by pointer).
 */
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlreader.h>

#endif
