// ICU renames every C function with its major version (ubidi_open → ubidi_open_72) through
// function-like macros, which Swift does not import. These static inline wrappers give the
// few functions LaminaText uses stable names; they compile against whichever ICU is installed.
#include <unicode/utypes.h>
#include <unicode/ubidi.h>
#include <unicode/ubrk.h>
#include <unicode/uscript.h>
#include <unicode/uchar.h>

static inline UBiDi *lamina_ubidi_open(void) { return ubidi_open(); }
static inline void lamina_ubidi_close(UBiDi *b) { ubidi_close(b); }
static inline void lamina_ubidi_setPara(UBiDi *b, const UChar *text, int32_t length, UBiDiLevel level,
                                        UErrorCode *error) {
    ubidi_setPara(b, text, length, level, NULL, error);
}
static inline UBiDiLevel lamina_ubidi_getParaLevel(const UBiDi *b) { return ubidi_getParaLevel(b); }
static inline UBiDiLevel lamina_ubidi_getLevelAt(const UBiDi *b, int32_t i) { return ubidi_getLevelAt(b, i); }
static inline void lamina_ubidi_setLine(const UBiDi *para, int32_t start, int32_t limit, UBiDi *line,
                                        UErrorCode *error) {
    ubidi_setLine(para, start, limit, line, error);
}
static inline int32_t lamina_ubidi_countRuns(UBiDi *b, UErrorCode *error) { return ubidi_countRuns(b, error); }
/// Returns 1 for a right-to-left run. `start` is relative to the line.
static inline int lamina_ubidi_getVisualRun(UBiDi *b, int32_t index, int32_t *start, int32_t *length) {
    return ubidi_getVisualRun(b, index, start, length) == UBIDI_RTL ? 1 : 0;
}
static inline UBreakIterator *lamina_ubrk_open_line(const UChar *text, int32_t length, UErrorCode *error) {
    return ubrk_open(UBRK_LINE, "", text, length, error);
}
static inline UBreakIterator *lamina_ubrk_open_character(const UChar *text, int32_t length, UErrorCode *error) {
    return ubrk_open(UBRK_CHARACTER, "", text, length, error);
}
static inline void lamina_ubrk_close(UBreakIterator *b) { ubrk_close(b); }
static inline int32_t lamina_ubrk_first(UBreakIterator *b) { return ubrk_first(b); }
static inline int32_t lamina_ubrk_next(UBreakIterator *b) { return ubrk_next(b); }
/// 1 when the break just returned is mandatory (a hard line break).
static inline int lamina_ubrk_isHard(UBreakIterator *b) {
    int32_t s = ubrk_getRuleStatus(b);
    return s >= UBRK_LINE_HARD && s < UBRK_LINE_HARD_LIMIT;
}
static inline int32_t lamina_ubrk_done(void) { return UBRK_DONE; }
/// The script of a code point (UScriptCode); 0 (Common) or 1 (Inherited) take their neighbours'.
static inline int32_t lamina_uscript_getScript(UChar32 c) {
    UErrorCode e = U_ZERO_ERROR;
    UScriptCode s = uscript_getScript(c, &e);
    return U_SUCCESS(e) ? (int32_t)s : 0;
}
/// The ISO 15924 code of a script ("Latn"), for HarfBuzz.
static inline const char *lamina_uscript_getShortName(int32_t script) {
    return uscript_getShortName((UScriptCode)script);
}
static inline int lamina_u_failure(UErrorCode e) { return U_FAILURE(e) ? 1 : 0; }
