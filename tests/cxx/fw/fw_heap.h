/* The C++ firmware's heap size (fw_sys.c), known to its application (cxx_fw.cpp). */
#ifndef FW_HEAP_H
#define FW_HEAP_H
#define FW_HEAP_BYTES (384u * 1024u)
#endif
