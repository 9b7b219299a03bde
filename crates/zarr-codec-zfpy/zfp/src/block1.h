#define DIMS 1
