// The few ICU functions LaminaText uses, behind an API of plain C types.
//
// Why a C target and not a system-library module map: ICU renames every function with its
// major version (ubidi_open → ubidi_open_72) through macros Swift does not import, and its
// headers define the same enums as the ICU inside Foundation (_FoundationICU), which clang
// refuses to merge. This header includes no ICU header; lamina_icu.c does.
#ifndef LAMINA_ICU_H
#define LAMINA_ICU_H
#include <stdint.h>

/// A paragraph's bidi analysis (UAX #9). Returns NULL on failure. The text must outlive it.
void *lamina_bidi_open(const uint16_t *text, int32_t length);
void lamina_bidi_close(void *bidi);
/// 1 when the paragraph level (from its first strong character; left to right without one) is odd.
int lamina_bidi_is_rtl(void *bidi);
uint8_t lamina_bidi_level_at(void *bidi, int32_t index);
/// A line [start, limit) of a paragraph, reordered (rule L1 included). NULL on failure.
void *lamina_bidi_line(void *paragraph, int32_t start, int32_t limit);
int32_t lamina_bidi_run_count(void *line);
/// Visual run `index` of a line: its logical start (relative to the line) and length;
/// returns 1 for right to left.
int lamina_bidi_visual_run(void *line, int32_t index, int32_t *start, int32_t *length);

/// Break positions of `text` in ascending order, into `out` (capacity `length + 1`):
/// `kind` 0 for grapheme clusters, 1 for line-break opportunities (UAX #14). `hard` (may be
/// NULL) gets 1 where the break is mandatory. Returns the count, or -1 on failure.
int32_t lamina_breaks(const uint16_t *text, int32_t length, int kind, int32_t *out, uint8_t *hard);

/// The script of a code point (ICU's UScriptCode); 0 common, 1 inherited; -1 on failure.
int32_t lamina_script(uint32_t scalar);
/// The ISO 15924 code of a script ("Latn"), or NULL.
const char *lamina_script_code(int32_t script);
#endif
