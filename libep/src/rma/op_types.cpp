#include "rma/op_types.hpp"

#include <cstddef>
#include <initializer_list>
#include <vector>

namespace ep::detail {

namespace {

bool one_of(MPI_Datatype type, std::initializer_list<MPI_Datatype> group) {
  for (MPI_Datatype member : group) {
    if (member != MPI_DATATYPE_NULL && type == member) return true;
  }
  return false;
}

// The groups of basic types of MPI-4.0 section 6.9.2 (the multi-language
// types MPI_AINT, MPI_OFFSET and MPI_COUNT count as integers).
bool c_integer(MPI_Datatype t) {
  return one_of(t, {MPI_INT,
                    MPI_LONG,
                    MPI_SHORT,
                    MPI_UNSIGNED_SHORT,
                    MPI_UNSIGNED,
                    MPI_UNSIGNED_LONG,
                    MPI_LONG_LONG_INT,
                    MPI_LONG_LONG,
                    MPI_UNSIGNED_LONG_LONG,
                    MPI_SIGNED_CHAR,
                    MPI_UNSIGNED_CHAR,
                    MPI_INT8_T,
                    MPI_INT16_T,
                    MPI_INT32_T,
                    MPI_INT64_T,
                    MPI_UINT8_T,
                    MPI_UINT16_T,
                    MPI_UINT32_T,
                    MPI_UINT64_T,
                    MPI_AINT,
                    MPI_OFFSET,
                    MPI_COUNT});
}
bool fortran_integer(MPI_Datatype t) { return one_of(t, {MPI_INTEGER}); }
bool floating(MPI_Datatype t) {
  return one_of(t, {MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_REAL, MPI_DOUBLE_PRECISION});
}
bool logical(MPI_Datatype t) { return one_of(t, {MPI_C_BOOL, MPI_CXX_BOOL, MPI_LOGICAL}); }
bool complex(MPI_Datatype t) {
  return one_of(t, {MPI_C_COMPLEX, MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX,
                    MPI_C_LONG_DOUBLE_COMPLEX, MPI_CXX_FLOAT_COMPLEX, MPI_CXX_DOUBLE_COMPLEX,
                    MPI_CXX_LONG_DOUBLE_COMPLEX, MPI_COMPLEX, MPI_DOUBLE_COMPLEX});
}
bool byte(MPI_Datatype t) { return t == MPI_BYTE; }
bool pair(MPI_Datatype t) {
  return one_of(t, {MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT, MPI_2INT, MPI_SHORT_INT,
                    MPI_LONG_DOUBLE_INT, MPI_2REAL, MPI_2DOUBLE_PRECISION, MPI_2INTEGER});
}

// The element type of every type in `types`, or MPI_DATATYPE_NULL if they
// differ; frees the derived ones (MPI_Type_get_contents made them).
int common_element(std::vector<MPI_Datatype>& types, MPI_Datatype* element) {
  int rc = MPI_SUCCESS;
  *element = MPI_DATATYPE_NULL;
  bool first = true;
  for (MPI_Datatype& t : types) {
    MPI_Datatype mine = MPI_DATATYPE_NULL;
    if (rc == MPI_SUCCESS) rc = element_type(t, &mine);
    if (rc == MPI_SUCCESS) {
      if (first)
        *element = mine;
      else if (mine != *element)
        *element = MPI_DATATYPE_NULL;
      first = false;
    }
    int ints = 0;
    int addresses = 0;
    int datatypes = 0;
    int combiner = MPI_COMBINER_NAMED;
    if (MPI_Type_get_envelope(t, &ints, &addresses, &datatypes, &combiner) == MPI_SUCCESS &&
        combiner != MPI_COMBINER_NAMED) {
      MPI_Type_free(&t);
    }
  }
  return rc;
}

}  // namespace

int element_type(MPI_Datatype type, MPI_Datatype* element) {
  int ints = 0;
  int addresses = 0;
  int datatypes = 0;
  int combiner = MPI_COMBINER_NAMED;
  int rc = MPI_Type_get_envelope(type, &ints, &addresses, &datatypes, &combiner);
  if (rc != MPI_SUCCESS) return rc;
  if (combiner == MPI_COMBINER_NAMED) {
    *element = type;
    return MPI_SUCCESS;
  }
  std::vector<int> int_args(static_cast<std::size_t>(ints));
  std::vector<MPI_Aint> address_args(static_cast<std::size_t>(addresses));
  std::vector<MPI_Datatype> types(static_cast<std::size_t>(datatypes));
  rc = MPI_Type_get_contents(type, ints, addresses, datatypes, int_args.data(), address_args.data(),
                             types.data());
  if (rc != MPI_SUCCESS) return rc;
  return common_element(types, element);
}

bool op_defined_on(MPI_Op op, MPI_Datatype t) {
  if (op == MPI_MAX || op == MPI_MIN) return c_integer(t) || fortran_integer(t) || floating(t);
  if (op == MPI_SUM || op == MPI_PROD) {
    return c_integer(t) || fortran_integer(t) || floating(t) || complex(t);
  }
  if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR) return c_integer(t) || logical(t);
  if (op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR) {
    return c_integer(t) || fortran_integer(t) || byte(t);
  }
  if (op == MPI_MAXLOC || op == MPI_MINLOC) return pair(t);
  return op == MPI_REPLACE || op == MPI_NO_OP;
}

bool swappable(MPI_Datatype type) {
  return c_integer(type) || fortran_integer(type) || logical(type) || byte(type);
}

std::string type_name(MPI_Datatype type, const char* fallback) {
  char name[MPI_MAX_OBJECT_NAME] = "";
  int length = 0;
  if (MPI_Type_get_name(type, name, &length) != MPI_SUCCESS || length <= 0) return fallback;
  return std::string(name, static_cast<std::size_t>(length));
}

const char* op_name(MPI_Op op) {
  struct Named {
    MPI_Op op;
    const char* name;
  };
  const Named names[] = {
      {MPI_MAX, "MPI_MAX"},         {MPI_MIN, "MPI_MIN"},       {MPI_SUM, "MPI_SUM"},
      {MPI_PROD, "MPI_PROD"},       {MPI_LAND, "MPI_LAND"},     {MPI_LOR, "MPI_LOR"},
      {MPI_LXOR, "MPI_LXOR"},       {MPI_BAND, "MPI_BAND"},     {MPI_BOR, "MPI_BOR"},
      {MPI_BXOR, "MPI_BXOR"},       {MPI_MAXLOC, "MPI_MAXLOC"}, {MPI_MINLOC, "MPI_MINLOC"},
      {MPI_REPLACE, "MPI_REPLACE"}, {MPI_NO_OP, "MPI_NO_OP"}};
  for (const Named& n : names) {
    if (n.op == op) return n.name;
  }
  return "the op";
}

}  // namespace ep::detail
