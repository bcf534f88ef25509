// mast's native addon: the module's entry point, which registers each part's functions
// (flat_tree.c: syntax trees as flat arrays; lstat_many.c: many lstat calls in one; deflate.c:
// raw deflate and inflate on kept streams).
#include "mast_native.h"

static napi_value init(napi_env env, napi_value exports) {
  if (!flat_tree_register(env, exports)) {
    napi_throw_error(env, "MAST_NATIVE", "mast_native: cannot initialise");
    return NULL;
  }
  lstat_many_register(env, exports);
  deflate_register(env, exports);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
