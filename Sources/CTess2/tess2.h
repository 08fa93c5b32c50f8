/* Declarations of the libtess2 API exported by Debian's libtess2-tulip-5.4 (which ships no
 * header), written from its exported symbols (nm -D) and libtess2's documented interface.
 * TESSreal is float, TESSindex int, as in upstream libtess2. Used only by lamina-bench. */
#ifndef LAMINA_TESS2_H
#define LAMINA_TESS2_H

typedef float TESSreal;
typedef int TESSindex;
typedef struct TESStesselator TESStesselator;
typedef struct TESSalloc TESSalloc;

enum TessWindingRule {
    TESS_WINDING_ODD,
    TESS_WINDING_NONZERO,
    TESS_WINDING_POSITIVE,
    TESS_WINDING_NEGATIVE,
    TESS_WINDING_ABS_GEQ_TWO,
};

enum TessElementType {
    TESS_POLYGONS,
    TESS_CONNECTED_POLYGONS,
    TESS_BOUNDARY_CONTOURS,
};

enum TessOption {
    TESS_CONSTRAINED_DELAUNAY_TRIANGULATION,
    TESS_REVERSE_CONTOURS,
};

#define TESS_UNDEF (~(TESSindex)0)

TESStesselator* tessNewTess(TESSalloc* alloc);
void tessDeleteTess(TESStesselator* tess);
void tessAddContour(TESStesselator* tess, int size, const void* pointer, int stride, int count);
void tessSetOption(TESStesselator* tess, int option, int value);
int tessTesselate(TESStesselator* tess, int windingRule, int elementType, int polySize,
                  int vertexSize, const TESSreal* normal);
int tessGetVertexCount(TESStesselator* tess);
const TESSreal* tessGetVertices(TESStesselator* tess);
const TESSindex* tessGetVertexIndices(TESStesselator* tess);
int tessGetElementCount(TESStesselator* tess);
const TESSindex* tessGetElements(TESStesselator* tess);

#endif
