#include <GL/glu.h>
