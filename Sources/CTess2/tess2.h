/* Declarations for libtess2 (Debian libtess2-tulip-5.4 ships no header): written by lamina-bench owner. */
