// Empty: CPrefetch is its header (`include/lamina_prefetch.h`, static inline functions);
// SwiftPM needs one source file to make a C target.
