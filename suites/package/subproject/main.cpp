// Compiled against ep::ep as a subproject gives it: its headers and its MPI.
#include <ep/ep.hpp>

int main() { return ep::version()[0] == '\0' ? 1 : 0; }
