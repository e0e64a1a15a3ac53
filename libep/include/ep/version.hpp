#pragma once

namespace ep {
/// The libep version, "major.minor.patch".
const char* version();
/// The git revision libep was built from ("unknown" outside a checkout).
const char* git_revision();
}  // namespace ep
