#include "lamina_icu.h"
#include <unicode/ubidi.h>
#include <unicode/ubrk.h>
#include <unicode/uscript.h>

void *lamina_bidi_open(const uint16_t *text, int32_t length) {
    UErrorCode error = U_ZERO_ERROR;
    UBiDi *bidi = ubidi_open();
    if (!bidi) return NULL;
    ubidi_setPara(bidi, (const UChar *)text, length, UBIDI_DEFAULT_LTR, NULL, &error);
    if (U_FAILURE(error)) { ubidi_close(bidi); return NULL; }
    return bidi;
}

void lamina_bidi_close(void *bidi) { if (bidi) ubidi_close((UBiDi *)bidi); }

int lamina_bidi_is_rtl(void *bidi) { return ubidi_getParaLevel((UBiDi *)bidi) & 1; }

uint8_t lamina_bidi_level_at(void *bidi, int32_t index) { return ubidi_getLevelAt((UBiDi *)bidi, index); }

void *lamina_bidi_line(void *paragraph, int32_t start, int32_t limit) {
    UErrorCode error = U_ZERO_ERROR;
    UBiDi *line = ubidi_open();
    if (!line) return NULL;
    ubidi_setLine((UBiDi *)paragraph, start, limit, line, &error);
    if (U_FAILURE(error)) { ubidi_close(line); return NULL; }
    return line;
}

int32_t lamina_bidi_run_count(void *line) {
    UErrorCode error = U_ZERO_ERROR;
    int32_t n = ubidi_countRuns((UBiDi *)line, &error);
    return U_FAILURE(error) ? 0 : n;
}

int lamina_bidi_visual_run(void *line, int32_t index, int32_t *start, int32_t *length) {
    return ubidi_getVisualRun((UBiDi *)line, index, start, length) == UBIDI_RTL ? 1 : 0;
}

int32_t lamina_breaks(const uint16_t *text, int32_t length, int kind, int32_t *out, uint8_t *hard) {
    UErrorCode error = U_ZERO_ERROR;
    UBreakIterator *it = ubrk_open(kind ? UBRK_LINE : UBRK_CHARACTER, "", (const UChar *)text, length, &error);
    if (U_FAILURE(error) || !it) return -1;
    int32_t count = 0;
    for (int32_t b = ubrk_first(it); b != UBRK_DONE && count <= length; b = ubrk_next(it)) {
        out[count] = b;
        if (hard) {
            int32_t status = ubrk_getRuleStatus(it);
            hard[count] = kind && status >= UBRK_LINE_HARD && status < UBRK_LINE_HARD_LIMIT;
        }
        count++;
    }
    ubrk_close(it);
    return count;
}

int32_t lamina_script(uint32_t scalar) {
    UErrorCode error = U_ZERO_ERROR;
    UScriptCode s = uscript_getScript((UChar32)scalar, &error);
    return U_FAILURE(error) ? -1 : (int32_t)s;
}

const char *lamina_script_code(int32_t script) { return uscript_getShortName((UScriptCode)script); }
