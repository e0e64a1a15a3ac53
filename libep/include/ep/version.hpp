#pragma once

// Which libep this is; any thread may ask, at any time, also outside MPI.
namespace ep {
/// The libep version, "major.minor.patch".
const char* version();
/// The git revision libep was built from ("unknown" outside a checkout).
const char* git_revision();
}  // namespace ep
