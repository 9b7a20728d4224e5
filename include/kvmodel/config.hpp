// kvmodel/config.hpp
//
// How kvmodel is compiled. By default it is header-only: every function is
// inline and compiled in each translation unit that uses it.
//
// KVMODEL_SEPARATE_COMPILATION (define it for the whole program): the CDT
// engine's entry points (cdt::apply, cdt::apply_bit_op, cdt::apply_hll_op), sim::cluster's
// commands, setup and accounting, value's and list/map's out-of-line
// members, kv::operation's copies, moves and builders, and the vectors and
// results named by KVMODEL_INSTANTIATE are only declared by the headers and
// compiled once, in the one .cpp that includes <kvmodel/src.hpp>. Nothing
// else changes: same functions, same results. It cuts build time where many
// translation units reach the engine or the cluster, directly or through the
// patterns; the price is that those calls are no longer inlined.
#pragma once

#define KVMODEL_CONFIG_INCLUDED 1

// KVMODEL_ALWAYS_INLINE / KVMODEL_NOINLINE: where a measured hot path needs
// the inlining decided rather than left to the compiler (the containers'
// comparisons, value's scalar copies, cdt::apply's quick path) and where the
// cold rest stays out of its way. GCC and Clang; nothing elsewhere.
// Unoptimised builds (-O0, no __OPTIMIZE__: a test or debug build) inline
// nothing: there forcing it only copied those bodies into every caller,
// ~8% more code to compile in a test file, and made nothing fast.
#if defined(__GNUC__) && defined(__OPTIMIZE__)
#    define KVMODEL_ALWAYS_INLINE [[gnu::always_inline]]
#else
#    define KVMODEL_ALWAYS_INLINE
#endif
#if defined(__GNUC__)
#    define KVMODEL_NOINLINE [[gnu::noinline]]
#else
#    define KVMODEL_NOINLINE
#endif
// KVMODEL_FLATTEN: when optimising, everything the function calls is
// inlined into it (GCC's flatten), whatever the file's inline budget: for a
// small hot loop over std::vector calls. In a large file (list_bench) GCC
// reaches its inline-unit-growth limit and leaves whichever calls come last
// out of line; which ones shifted with unrelated changes elsewhere. Nothing
// at -O0.
#if defined(__GNUC__) && defined(__OPTIMIZE__)
#    define KVMODEL_FLATTEN [[gnu::flatten]]
#else
#    define KVMODEL_FLATTEN
#endif
// KVMODEL_FORCE_INLINE: inlined at -O0 too: a helper with a single caller,
// or an accessor no bigger than the call it replaces (result<T>::value). At
// -O0 each would otherwise be one more function (per template argument) to
// compile in every file that uses it; anything bigger stays a function (see
// KVMODEL_ALWAYS_INLINE). When optimising, plain: forcing these into large
// callers spent GCC's growth budget there and left hotter calls out of line
// (bucket_bench read_newest50 +15%).
#if defined(__GNUC__) && !defined(__OPTIMIZE__)
#    define KVMODEL_FORCE_INLINE [[gnu::always_inline]]
#else
#    define KVMODEL_FORCE_INLINE
#endif

// KVMODEL_HOT marks an entry point whose quick path belongs in the caller's
// code (cdt::apply): forced inline when header-only, KVMODEL_DECL otherwise.
#if defined(KVMODEL_SEPARATE_COMPILATION)
#    define KVMODEL_DECL
#    define KVMODEL_HOT
#    if defined(KVMODEL_SOURCE)
#        define KVMODEL_DEFINITIONS 1
#    else
#        define KVMODEL_DEFINITIONS 0
#    endif
#else
#    define KVMODEL_DECL inline
#    define KVMODEL_HOT KVMODEL_ALWAYS_INLINE inline
#    define KVMODEL_DEFINITIONS 1
#endif

// KVMODEL_INSTANTIATE(class std::vector<T>): a class template
// specialization every file would instantiate the same way (a vector of
// operations, the result of a read). With KVMODEL_SEPARATE_COMPILATION its
// members are compiled once, in the library (an explicit instantiation
// definition), and only declared elsewhere (extern template); header-only it
// is nothing. Only for specializations whose every member compiles.
#if defined(KVMODEL_SEPARATE_COMPILATION)
#    if defined(KVMODEL_SOURCE)
#        define KVMODEL_INSTANTIATE(...) template __VA_ARGS__;
#    else
#        define KVMODEL_INSTANTIATE(...) extern template __VA_ARGS__;
#    endif
#else
#    define KVMODEL_INSTANTIATE(...)
#endif

// KVMODEL_TSAN: compiled under ThreadSanitizer (GCC or Clang), which models
// atomics but not standalone fences; code that synchronises through a fence
// uses an equivalent atomic there instead.
#if defined(__SANITIZE_THREAD__)
#    define KVMODEL_TSAN 1
#elif defined(__has_feature)
#    if __has_feature(thread_sanitizer)
#        define KVMODEL_TSAN 1
#    endif
#endif
#if !defined(KVMODEL_TSAN)
#    define KVMODEL_TSAN 0
#endif
