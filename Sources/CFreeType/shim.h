#include <ft2build.h>
#include FT_FREETYPE_H
#include FT_OUTLINE_H
#include FT_TRUETYPE_TABLES_H

/// FT_HAS_COLOR and friends are macros Swift cannot import; the one the atlas needs.
static inline int lamina_ft_face_flags(FT_Face face) { return (int)face->face_flags; }
