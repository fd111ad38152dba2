// The in-memory headers NVRTC compiles candidates with. Each text below is a
// C++ header for device code; see device_headers.h for the why, and
// docs/compilation.md for what each header provides.
//
// Rules these headers follow:
//  - Names match what nvcc gives device code on Linux (glibc, libstdc++, CUDA
//    13's crt headers) with --expt-relaxed-constexpr: constexpr library
//    functions are callable from device code, other host library functions are
//    not, so they are not declared here (nvcc would reject the call too).
//  - The prelude (what nvcc's implicit cuda_runtime.h include brings) is
//    parsed by every compile, so it is small and avoids libcu++'s umbrella
//    headers (<cuda/std/type_traits> alone costs NVRTC about 0.6 s).
//  - Types agree with libcu++'s NVRTC definitions (int64_t is long long
//    there), so a candidate may include <cuda/std/...> or CUB as well.
#include "compiler/device_headers.h"

#include <cstring>
#include <initializer_list>

namespace kb {
namespace {

// --------------------------------------------------------------------------
// __kb/config.h: helper macros, limits.h/stdlib.h/stdio.h constants.
const char* kConfig = R"KB(#pragma once
#define __KB_HD __host__ __device__
#define __KB_HDI __host__ __device__ inline
#define __KB_CXX17 (__cplusplus >= 201703L)
#define __KB_CXX20 (__cplusplus > 201703L)
/* <limits.h>: libcu++'s NVRTC spellings, so that <cuda/std/climits> agrees */
#ifndef CHAR_BIT
#  define CHAR_BIT 8
#  define SCHAR_MIN         (-128)
#  define SCHAR_MAX         127
#  define UCHAR_MAX         255
#  define CHAR_MIN SCHAR_MIN
#  define CHAR_MAX SCHAR_MAX
#  define SHRT_MIN  (-SHRT_MAX - 1)
#  define SHRT_MAX  0x7fff
#  define USHRT_MAX 0xffff
#  define INT_MIN   (-INT_MAX - 1)
#  define INT_MAX   0x7fffffff
#  define UINT_MAX  0xffffffff
#  define LONG_MIN  (-LONG_MAX - 1)
#  define LONG_MAX  LLONG_MAX
#  define ULONG_MAX ULLONG_MAX
#  define LLONG_MIN  (-LLONG_MAX - 1)
#  define LLONG_MAX  0x7fffffffffffffffLL
#  define ULLONG_MAX 0xffffffffffffffffUL
#endif
#ifndef MB_LEN_MAX
#define MB_LEN_MAX 16
#endif
/* <stdlib.h> and <stdio.h> constants (glibc values) */
#ifndef RAND_MAX
#define RAND_MAX 2147483647
#endif
#ifndef EXIT_SUCCESS
#define EXIT_SUCCESS 0
#endif
#ifndef EXIT_FAILURE
#define EXIT_FAILURE 1
#endif
#ifndef EOF
#define EOF (-1)
#endif
/* <stddef.h> */
#ifndef offsetof
#define offsetof(type, member) (::size_t) ((char*) &(((type*) 0)->member) - (char*) 0)
#endif
/* glibc's <sys/types.h> (reached through <stdlib.h>): the signed fixed-width
   types, the BSD u_intN_t names and uint/ushort/ulong. The unsigned uintN_t
   names need <stdint.h>, as under nvcc. 64-bit types are glibc's `long`, so
   kernels mangle as nvcc's do, unless the source includes headers that define
   them as `long long` under NVRTC (libcu++, CUB, cooperative groups,
   cuda_pipeline, curand): then theirs (__KB_LL64). */
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
#ifdef __KB_LL64
typedef long long int64_t;
typedef unsigned long long u_int64_t;
#else
typedef long int64_t;
typedef unsigned long u_int64_t;
#endif
typedef unsigned char u_int8_t;
typedef unsigned short u_int16_t;
typedef unsigned int u_int32_t;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;
namespace std {
typedef decltype(sizeof(0)) size_t;
typedef decltype((char*)0 - (char*)0) ptrdiff_t;
typedef decltype(nullptr) nullptr_t;
#if __KB_CXX17
enum class byte : unsigned char {};
#endif
}
)KB";

// --------------------------------------------------------------------------
// __kb/type_traits.h: <type_traits>, which libstdc++'s <cmath> brings along.
const char* kTypeTraits = R"KB(#pragma once
#include "__kb/config.h"
namespace std {
template <class T, T v> struct integral_constant {
  static constexpr T value = v;
  typedef T value_type;
  typedef integral_constant type;
  __KB_HD constexpr operator value_type() const noexcept { return value; }
  __KB_HD constexpr value_type operator()() const noexcept { return value; }
};
template <class T, T v> constexpr T integral_constant<T, v>::value;
typedef integral_constant<bool, true> true_type;
typedef integral_constant<bool, false> false_type;
template <bool B> using bool_constant = integral_constant<bool, B>;

template <class T, class U> struct is_same : false_type {};
template <class T> struct is_same<T, T> : true_type {};
template <bool B, class T = void> struct enable_if {};
template <class T> struct enable_if<true, T> { typedef T type; };
template <bool B, class T, class F> struct conditional { typedef T type; };
template <class T, class F> struct conditional<false, T, F> { typedef F type; };
template <bool B, class T = void> using enable_if_t = typename enable_if<B, T>::type;
template <bool B, class T, class F> using conditional_t = typename conditional<B, T, F>::type;
template <class...> using void_t = void;
#if __KB_CXX20
template <class T> struct type_identity { typedef T type; };
template <class T> using type_identity_t = typename type_identity<T>::type;
#endif

template <class T> struct remove_const { typedef T type; };
template <class T> struct remove_const<const T> { typedef T type; };
template <class T> struct remove_volatile { typedef T type; };
template <class T> struct remove_volatile<volatile T> { typedef T type; };
template <class T> struct remove_cv { typedef typename remove_volatile<typename remove_const<T>::type>::type type; };
template <class T> struct add_const { typedef const T type; };
template <class T> struct add_volatile { typedef volatile T type; };
template <class T> struct add_cv { typedef const volatile T type; };
template <class T> struct remove_reference { typedef T type; };
template <class T> struct remove_reference<T&> { typedef T type; };
template <class T> struct remove_reference<T&&> { typedef T type; };
namespace __kb_detail {
template <class T> struct type_is { typedef T type; };
template <class T> type_is<T&> __KB_HD try_add_lref(int);
template <class T> type_is<T> __KB_HD try_add_lref(...);
template <class T> type_is<T&&> __KB_HD try_add_rref(int);
template <class T> type_is<T> __KB_HD try_add_rref(...);
template <class T> type_is<typename remove_reference<T>::type*> __KB_HD try_add_ptr(int);
template <class T> type_is<T> __KB_HD try_add_ptr(...);
}
template <class T> struct add_lvalue_reference : decltype(__kb_detail::try_add_lref<T>(0)) {};
template <class T> struct add_rvalue_reference : decltype(__kb_detail::try_add_rref<T>(0)) {};
template <class T> struct add_pointer : decltype(__kb_detail::try_add_ptr<T>(0)) {};
template <class T> struct remove_pointer { typedef T type; };
template <class T> struct remove_pointer<T*> { typedef T type; };
template <class T> struct remove_pointer<T* const> { typedef T type; };
template <class T> struct remove_pointer<T* volatile> { typedef T type; };
template <class T> struct remove_pointer<T* const volatile> { typedef T type; };
template <class T> struct remove_extent { typedef T type; };
template <class T> struct remove_extent<T[]> { typedef T type; };
template <class T, size_t N> struct remove_extent<T[N]> { typedef T type; };
template <class T> struct remove_all_extents { typedef T type; };
template <class T> struct remove_all_extents<T[]> { typedef typename remove_all_extents<T>::type type; };
template <class T, size_t N> struct remove_all_extents<T[N]> { typedef typename remove_all_extents<T>::type type; };
template <class T> using remove_const_t = typename remove_const<T>::type;
template <class T> using remove_volatile_t = typename remove_volatile<T>::type;
template <class T> using remove_cv_t = typename remove_cv<T>::type;
template <class T> using add_const_t = typename add_const<T>::type;
template <class T> using add_volatile_t = typename add_volatile<T>::type;
template <class T> using add_cv_t = typename add_cv<T>::type;
template <class T> using remove_reference_t = typename remove_reference<T>::type;
template <class T> using add_lvalue_reference_t = typename add_lvalue_reference<T>::type;
template <class T> using add_rvalue_reference_t = typename add_rvalue_reference<T>::type;
template <class T> using add_pointer_t = typename add_pointer<T>::type;
template <class T> using remove_pointer_t = typename remove_pointer<T>::type;
template <class T> using remove_extent_t = typename remove_extent<T>::type;
template <class T> using remove_all_extents_t = typename remove_all_extents<T>::type;
#if __KB_CXX20
template <class T> struct remove_cvref { typedef remove_cv_t<remove_reference_t<T>> type; };
template <class T> using remove_cvref_t = typename remove_cvref<T>::type;
#endif

template <class T> __KB_HD add_rvalue_reference_t<T> declval() noexcept;

template <class T> struct is_const : false_type {};
template <class T> struct is_const<const T> : true_type {};
template <class T> struct is_volatile : false_type {};
template <class T> struct is_volatile<volatile T> : true_type {};
namespace __kb_detail {
template <class T> struct is_integral : false_type {};
template <> struct is_integral<bool> : true_type {};
template <> struct is_integral<char> : true_type {};
template <> struct is_integral<signed char> : true_type {};
template <> struct is_integral<unsigned char> : true_type {};
template <> struct is_integral<wchar_t> : true_type {};
template <> struct is_integral<char16_t> : true_type {};
template <> struct is_integral<char32_t> : true_type {};
template <> struct is_integral<short> : true_type {};
template <> struct is_integral<unsigned short> : true_type {};
template <> struct is_integral<int> : true_type {};
template <> struct is_integral<unsigned int> : true_type {};
template <> struct is_integral<long> : true_type {};
template <> struct is_integral<unsigned long> : true_type {};
template <> struct is_integral<long long> : true_type {};
template <> struct is_integral<unsigned long long> : true_type {};
template <class T> struct is_floating_point : false_type {};
template <> struct is_floating_point<float> : true_type {};
template <> struct is_floating_point<double> : true_type {};
template <> struct is_floating_point<long double> : true_type {};
template <class T> struct is_pointer : false_type {};
template <class T> struct is_pointer<T*> : true_type {};
template <class T> struct is_member_pointer : false_type {};
template <class T, class C> struct is_member_pointer<T C::*> : true_type {};
}
template <class T> struct is_void : is_same<void, typename remove_cv<T>::type> {};
template <class T> struct is_null_pointer : is_same<decltype(nullptr), typename remove_cv<T>::type> {};
template <class T> struct is_integral : __kb_detail::is_integral<typename remove_cv<T>::type> {};
template <class T> struct is_floating_point : __kb_detail::is_floating_point<typename remove_cv<T>::type> {};
template <class T> struct is_array : false_type {};
template <class T> struct is_array<T[]> : true_type {};
template <class T, size_t N> struct is_array<T[N]> : true_type {};
template <class T> struct is_pointer : __kb_detail::is_pointer<typename remove_cv<T>::type> {};
template <class T> struct is_lvalue_reference : false_type {};
template <class T> struct is_lvalue_reference<T&> : true_type {};
template <class T> struct is_rvalue_reference : false_type {};
template <class T> struct is_rvalue_reference<T&&> : true_type {};
template <class T> struct is_reference : bool_constant<is_lvalue_reference<T>::value || is_rvalue_reference<T>::value> {};
template <class T> struct is_function : bool_constant<!is_const<const T>::value && !is_reference<T>::value> {};
template <class T> struct is_member_pointer : __kb_detail::is_member_pointer<typename remove_cv<T>::type> {};
namespace __kb_detail {
template <class T> struct is_mfp : false_type {};
template <class T, class C> struct is_mfp<T C::*> : std::is_function<T> {};
}
template <class T> struct is_member_function_pointer : __kb_detail::is_mfp<typename remove_cv<T>::type> {};
template <class T> struct is_member_object_pointer
    : bool_constant<is_member_pointer<T>::value && !is_member_function_pointer<T>::value> {};
template <class T> struct is_enum : bool_constant<__is_enum(T)> {};
template <class T> struct is_union : bool_constant<__is_union(T)> {};
template <class T> struct is_class : bool_constant<__is_class(T)> {};
template <class T> struct is_arithmetic : bool_constant<is_integral<T>::value || is_floating_point<T>::value> {};
template <class T> struct is_fundamental
    : bool_constant<is_arithmetic<T>::value || is_void<T>::value || is_null_pointer<T>::value> {};
template <class T> struct is_scalar
    : bool_constant<is_arithmetic<T>::value || is_enum<T>::value || is_pointer<T>::value ||
                    is_member_pointer<T>::value || is_null_pointer<T>::value> {};
template <class T> struct is_object
    : bool_constant<is_scalar<T>::value || is_array<T>::value || is_union<T>::value || is_class<T>::value> {};
template <class T> struct is_compound : bool_constant<!is_fundamental<T>::value> {};
namespace __kb_detail {
template <class T, bool = is_arithmetic<T>::value> struct is_signed : bool_constant<T(-1) < T(0)> {};
template <class T> struct is_signed<T, false> : false_type {};
template <class T, bool = is_arithmetic<T>::value> struct is_unsigned : bool_constant<T(0) < T(-1)> {};
template <class T> struct is_unsigned<T, false> : false_type {};
}
template <class T> struct is_signed : __kb_detail::is_signed<T> {};
template <class T> struct is_unsigned : __kb_detail::is_unsigned<T> {};
template <class T> struct is_trivial : bool_constant<__is_trivial(T)> {};
template <class T> struct is_trivially_copyable : bool_constant<__is_trivially_copyable(T)> {};
template <class T> struct is_standard_layout : bool_constant<__is_standard_layout(T)> {};
template <class T> struct is_pod : bool_constant<__is_pod(T)> {};
template <class T> struct is_empty : bool_constant<__is_empty(T)> {};
template <class T> struct is_polymorphic : bool_constant<__is_polymorphic(T)> {};
template <class T> struct is_abstract : bool_constant<__is_abstract(T)> {};
template <class T> struct is_final : bool_constant<__is_final(T)> {};
#if __KB_CXX17
template <class T> struct is_aggregate : bool_constant<__is_aggregate(T)> {};
template <class T> struct has_unique_object_representations : bool_constant<__has_unique_object_representations(T)> {};
#endif
template <class T, class... A> struct is_constructible : bool_constant<__is_constructible(T, A...)> {};
template <class T, class... A> struct is_trivially_constructible : bool_constant<__is_trivially_constructible(T, A...)> {};
template <class T, class... A> struct is_nothrow_constructible : bool_constant<__is_nothrow_constructible(T, A...)> {};
template <class T> struct is_default_constructible : is_constructible<T> {};
template <class T> struct is_trivially_default_constructible : is_trivially_constructible<T> {};
template <class T> struct is_nothrow_default_constructible : is_nothrow_constructible<T> {};
template <class T> struct is_copy_constructible : is_constructible<T, add_lvalue_reference_t<const T>> {};
template <class T> struct is_trivially_copy_constructible : is_trivially_constructible<T, add_lvalue_reference_t<const T>> {};
template <class T> struct is_nothrow_copy_constructible : is_nothrow_constructible<T, add_lvalue_reference_t<const T>> {};
template <class T> struct is_move_constructible : is_constructible<T, add_rvalue_reference_t<T>> {};
template <class T> struct is_trivially_move_constructible : is_trivially_constructible<T, add_rvalue_reference_t<T>> {};
template <class T> struct is_nothrow_move_constructible : is_nothrow_constructible<T, add_rvalue_reference_t<T>> {};
template <class T, class U> struct is_assignable : bool_constant<__is_assignable(T, U)> {};
template <class T, class U> struct is_trivially_assignable : bool_constant<__is_trivially_assignable(T, U)> {};
template <class T, class U> struct is_nothrow_assignable : bool_constant<__is_nothrow_assignable(T, U)> {};
template <class T> struct is_copy_assignable : is_assignable<add_lvalue_reference_t<T>, add_lvalue_reference_t<const T>> {};
template <class T> struct is_trivially_copy_assignable : is_trivially_assignable<add_lvalue_reference_t<T>, add_lvalue_reference_t<const T>> {};
template <class T> struct is_nothrow_copy_assignable : is_nothrow_assignable<add_lvalue_reference_t<T>, add_lvalue_reference_t<const T>> {};
template <class T> struct is_move_assignable : is_assignable<add_lvalue_reference_t<T>, add_rvalue_reference_t<T>> {};
template <class T> struct is_trivially_move_assignable : is_trivially_assignable<add_lvalue_reference_t<T>, add_rvalue_reference_t<T>> {};
template <class T> struct is_nothrow_move_assignable : is_nothrow_assignable<add_lvalue_reference_t<T>, add_rvalue_reference_t<T>> {};
template <class T> struct is_destructible : bool_constant<__is_destructible(T)> {};
template <class T> struct is_trivially_destructible : bool_constant<__is_trivially_destructible(T)> {};
template <class T> struct is_nothrow_destructible : bool_constant<__is_nothrow_destructible(T)> {};
template <class T> struct has_virtual_destructor : bool_constant<__has_virtual_destructor(T)> {};
template <class B, class D> struct is_base_of : bool_constant<__is_base_of(B, D)> {};
template <class F, class T> struct is_convertible
    : bool_constant<(is_void<F>::value && is_void<T>::value) ||
                    (!is_void<F>::value && !is_void<T>::value && __is_convertible_to(F, T))> {};
template <class T> struct alignment_of : integral_constant<size_t, alignof(T)> {};
template <class T> struct rank : integral_constant<size_t, 0> {};
template <class T> struct rank<T[]> : integral_constant<size_t, rank<T>::value + 1> {};
template <class T, size_t N> struct rank<T[N]> : integral_constant<size_t, rank<T>::value + 1> {};
template <class T, unsigned I = 0> struct extent : integral_constant<size_t, 0> {};
template <class T> struct extent<T[], 0> : integral_constant<size_t, 0> {};
template <class T, unsigned I> struct extent<T[], I> : extent<T, I - 1> {};
template <class T, size_t N> struct extent<T[N], 0> : integral_constant<size_t, N> {};
template <class T, size_t N, unsigned I> struct extent<T[N], I> : extent<T, I - 1> {};

template <class T> struct decay {
 private:
  typedef remove_reference_t<T> U;
 public:
  typedef conditional_t<is_array<U>::value, remove_extent_t<U>*,
                        conditional_t<is_function<U>::value, add_pointer_t<U>, remove_cv_t<U>>> type;
};
template <class T> using decay_t = typename decay<T>::type;

template <class...> struct common_type {};
template <class T> struct common_type<T> : common_type<T, T> {};
namespace __kb_detail {
template <class T1, class T2> using cond_t = decltype(false ? declval<T1>() : declval<T2>());
template <class T1, class T2, class = void> struct common_type2 {};
template <class T1, class T2> struct common_type2<T1, T2, void_t<cond_t<T1, T2>>> { typedef decay_t<cond_t<T1, T2>> type; };
template <class AlwaysVoid, class T1, class T2, class... R> struct common_type_multi {};
template <class T1, class T2, class... R>
struct common_type_multi<void_t<typename common_type<T1, T2>::type>, T1, T2, R...>
    : common_type<typename common_type<T1, T2>::type, R...> {};
}
template <class T1, class T2> struct common_type<T1, T2>
    : conditional_t<is_same<T1, decay_t<T1>>::value && is_same<T2, decay_t<T2>>::value,
                    __kb_detail::common_type2<T1, T2>, common_type<decay_t<T1>, decay_t<T2>>> {};
template <class T1, class T2, class... R> struct common_type<T1, T2, R...> : __kb_detail::common_type_multi<void, T1, T2, R...> {};
template <class... T> using common_type_t = typename common_type<T...>::type;

namespace __kb_detail {
template <class T, class U> struct copy_cv { typedef U type; };
template <class T, class U> struct copy_cv<const T, U> { typedef const U type; };
template <class T, class U> struct copy_cv<volatile T, U> { typedef volatile U type; };
template <class T, class U> struct copy_cv<const volatile T, U> { typedef const volatile U type; };
template <class T> struct make_signed_base {};
template <> struct make_signed_base<char> { typedef signed char type; };
template <> struct make_signed_base<signed char> { typedef signed char type; };
template <> struct make_signed_base<unsigned char> { typedef signed char type; };
template <> struct make_signed_base<short> { typedef short type; };
template <> struct make_signed_base<unsigned short> { typedef short type; };
template <> struct make_signed_base<int> { typedef int type; };
template <> struct make_signed_base<unsigned int> { typedef int type; };
template <> struct make_signed_base<long> { typedef long type; };
template <> struct make_signed_base<unsigned long> { typedef long type; };
template <> struct make_signed_base<long long> { typedef long long type; };
template <> struct make_signed_base<unsigned long long> { typedef long long type; };
template <> struct make_signed_base<wchar_t> { typedef int type; };
template <> struct make_signed_base<char16_t> { typedef short type; };
template <> struct make_signed_base<char32_t> { typedef int type; };
template <class T> struct make_unsigned_base {};
template <> struct make_unsigned_base<char> { typedef unsigned char type; };
template <> struct make_unsigned_base<signed char> { typedef unsigned char type; };
template <> struct make_unsigned_base<unsigned char> { typedef unsigned char type; };
template <> struct make_unsigned_base<short> { typedef unsigned short type; };
template <> struct make_unsigned_base<unsigned short> { typedef unsigned short type; };
template <> struct make_unsigned_base<int> { typedef unsigned int type; };
template <> struct make_unsigned_base<unsigned int> { typedef unsigned int type; };
template <> struct make_unsigned_base<long> { typedef unsigned long type; };
template <> struct make_unsigned_base<unsigned long> { typedef unsigned long type; };
template <> struct make_unsigned_base<long long> { typedef unsigned long long type; };
template <> struct make_unsigned_base<unsigned long long> { typedef unsigned long long type; };
template <> struct make_unsigned_base<wchar_t> { typedef unsigned int type; };
template <> struct make_unsigned_base<char16_t> { typedef unsigned short type; };
template <> struct make_unsigned_base<char32_t> { typedef unsigned int type; };
template <size_t S> struct int_of_size {};
template <> struct int_of_size<1> { typedef signed char type; };
template <> struct int_of_size<2> { typedef short type; };
template <> struct int_of_size<4> { typedef int type; };
template <> struct int_of_size<8> { typedef long long type; };
template <class T, bool = __is_enum(T)> struct make_signed_nocv : make_signed_base<T> {};
template <class T> struct make_signed_nocv<T, true> : make_signed_base<typename int_of_size<sizeof(T)>::type> {};
template <class T, bool = __is_enum(T)> struct make_unsigned_nocv : make_unsigned_base<T> {};
template <class T> struct make_unsigned_nocv<T, true> : make_unsigned_base<typename int_of_size<sizeof(T)>::type> {};
template <class T, class = void> struct make_signed {};
template <class T> struct make_signed<T, void_t<typename make_signed_nocv<remove_cv_t<T>>::type>> {
  typedef typename copy_cv<T, typename make_signed_nocv<remove_cv_t<T>>::type>::type type;
};
template <class T, class = void> struct make_unsigned {};
template <class T> struct make_unsigned<T, void_t<typename make_unsigned_nocv<remove_cv_t<T>>::type>> {
  typedef typename copy_cv<T, typename make_unsigned_nocv<remove_cv_t<T>>::type>::type type;
};
}
template <class T> struct make_signed : __kb_detail::make_signed<T> {};
template <class T> struct make_unsigned : __kb_detail::make_unsigned<T> {};
template <class T> using make_signed_t = typename make_signed<T>::type;
template <class T> using make_unsigned_t = typename make_unsigned<T>::type;
namespace __kb_detail {
template <class T, bool = __is_enum(T)> struct underlying_type {};
template <class T> struct underlying_type<T, true> { typedef __underlying_type(T) type; };
}
template <class T> struct underlying_type : __kb_detail::underlying_type<T> {};
template <class T> using underlying_type_t = typename underlying_type<T>::type;
template <size_t Len, size_t Align = 16> struct aligned_storage {
  struct type { alignas(Align) unsigned char data[Len]; };
};
template <size_t Len, size_t Align = 16> using aligned_storage_t = typename aligned_storage<Len, Align>::type;

#if __KB_CXX17
template <class...> struct conjunction : true_type {};
template <class B> struct conjunction<B> : B {};
template <class B, class... R> struct conjunction<B, R...> : conditional_t<bool(B::value), conjunction<R...>, B> {};
template <class...> struct disjunction : false_type {};
template <class B> struct disjunction<B> : B {};
template <class B, class... R> struct disjunction<B, R...> : conditional_t<bool(B::value), B, disjunction<R...>> {};
template <class B> struct negation : bool_constant<!bool(B::value)> {};
template <class... B> inline constexpr bool conjunction_v = conjunction<B...>::value;
template <class... B> inline constexpr bool disjunction_v = disjunction<B...>::value;
template <class B> inline constexpr bool negation_v = negation<B>::value;

template <class T, class U> inline constexpr bool is_same_v = is_same<T, U>::value;
template <class T> inline constexpr bool is_void_v = is_void<T>::value;
template <class T> inline constexpr bool is_null_pointer_v = is_null_pointer<T>::value;
template <class T> inline constexpr bool is_integral_v = is_integral<T>::value;
template <class T> inline constexpr bool is_floating_point_v = is_floating_point<T>::value;
template <class T> inline constexpr bool is_array_v = is_array<T>::value;
template <class T> inline constexpr bool is_pointer_v = is_pointer<T>::value;
template <class T> inline constexpr bool is_lvalue_reference_v = is_lvalue_reference<T>::value;
template <class T> inline constexpr bool is_rvalue_reference_v = is_rvalue_reference<T>::value;
template <class T> inline constexpr bool is_reference_v = is_reference<T>::value;
template <class T> inline constexpr bool is_function_v = is_function<T>::value;
template <class T> inline constexpr bool is_member_pointer_v = is_member_pointer<T>::value;
template <class T> inline constexpr bool is_member_function_pointer_v = is_member_function_pointer<T>::value;
template <class T> inline constexpr bool is_member_object_pointer_v = is_member_object_pointer<T>::value;
template <class T> inline constexpr bool is_enum_v = is_enum<T>::value;
template <class T> inline constexpr bool is_union_v = is_union<T>::value;
template <class T> inline constexpr bool is_class_v = is_class<T>::value;
template <class T> inline constexpr bool is_arithmetic_v = is_arithmetic<T>::value;
template <class T> inline constexpr bool is_fundamental_v = is_fundamental<T>::value;
template <class T> inline constexpr bool is_scalar_v = is_scalar<T>::value;
template <class T> inline constexpr bool is_object_v = is_object<T>::value;
template <class T> inline constexpr bool is_compound_v = is_compound<T>::value;
template <class T> inline constexpr bool is_const_v = is_const<T>::value;
template <class T> inline constexpr bool is_volatile_v = is_volatile<T>::value;
template <class T> inline constexpr bool is_signed_v = is_signed<T>::value;
template <class T> inline constexpr bool is_unsigned_v = is_unsigned<T>::value;
template <class T> inline constexpr bool is_trivial_v = is_trivial<T>::value;
template <class T> inline constexpr bool is_trivially_copyable_v = is_trivially_copyable<T>::value;
template <class T> inline constexpr bool is_standard_layout_v = is_standard_layout<T>::value;
template <class T> inline constexpr bool is_pod_v = is_pod<T>::value;
template <class T> inline constexpr bool is_empty_v = is_empty<T>::value;
template <class T> inline constexpr bool is_polymorphic_v = is_polymorphic<T>::value;
template <class T> inline constexpr bool is_abstract_v = is_abstract<T>::value;
template <class T> inline constexpr bool is_final_v = is_final<T>::value;
template <class T> inline constexpr bool is_aggregate_v = is_aggregate<T>::value;
template <class T> inline constexpr bool has_unique_object_representations_v = has_unique_object_representations<T>::value;
template <class T, class... A> inline constexpr bool is_constructible_v = is_constructible<T, A...>::value;
template <class T, class... A> inline constexpr bool is_trivially_constructible_v = is_trivially_constructible<T, A...>::value;
template <class T, class... A> inline constexpr bool is_nothrow_constructible_v = is_nothrow_constructible<T, A...>::value;
template <class T> inline constexpr bool is_default_constructible_v = is_default_constructible<T>::value;
template <class T> inline constexpr bool is_trivially_default_constructible_v = is_trivially_default_constructible<T>::value;
template <class T> inline constexpr bool is_nothrow_default_constructible_v = is_nothrow_default_constructible<T>::value;
template <class T> inline constexpr bool is_copy_constructible_v = is_copy_constructible<T>::value;
template <class T> inline constexpr bool is_trivially_copy_constructible_v = is_trivially_copy_constructible<T>::value;
template <class T> inline constexpr bool is_nothrow_copy_constructible_v = is_nothrow_copy_constructible<T>::value;
template <class T> inline constexpr bool is_move_constructible_v = is_move_constructible<T>::value;
template <class T> inline constexpr bool is_trivially_move_constructible_v = is_trivially_move_constructible<T>::value;
template <class T> inline constexpr bool is_nothrow_move_constructible_v = is_nothrow_move_constructible<T>::value;
template <class T, class U> inline constexpr bool is_assignable_v = is_assignable<T, U>::value;
template <class T, class U> inline constexpr bool is_trivially_assignable_v = is_trivially_assignable<T, U>::value;
template <class T, class U> inline constexpr bool is_nothrow_assignable_v = is_nothrow_assignable<T, U>::value;
template <class T> inline constexpr bool is_copy_assignable_v = is_copy_assignable<T>::value;
template <class T> inline constexpr bool is_trivially_copy_assignable_v = is_trivially_copy_assignable<T>::value;
template <class T> inline constexpr bool is_nothrow_copy_assignable_v = is_nothrow_copy_assignable<T>::value;
template <class T> inline constexpr bool is_move_assignable_v = is_move_assignable<T>::value;
template <class T> inline constexpr bool is_trivially_move_assignable_v = is_trivially_move_assignable<T>::value;
template <class T> inline constexpr bool is_nothrow_move_assignable_v = is_nothrow_move_assignable<T>::value;
template <class T> inline constexpr bool is_destructible_v = is_destructible<T>::value;
template <class T> inline constexpr bool is_trivially_destructible_v = is_trivially_destructible<T>::value;
template <class T> inline constexpr bool is_nothrow_destructible_v = is_nothrow_destructible<T>::value;
template <class T> inline constexpr bool has_virtual_destructor_v = has_virtual_destructor<T>::value;
template <class B, class D> inline constexpr bool is_base_of_v = is_base_of<B, D>::value;
template <class F, class T> inline constexpr bool is_convertible_v = is_convertible<F, T>::value;
template <class T> inline constexpr size_t alignment_of_v = alignment_of<T>::value;
template <class T> inline constexpr size_t rank_v = rank<T>::value;
template <class T, unsigned I = 0> inline constexpr size_t extent_v = extent<T, I>::value;
#endif
#if __KB_CXX20
__KB_HD constexpr bool is_constant_evaluated() noexcept { return __builtin_is_constant_evaluated(); }
#endif

template <class T, T... I> struct integer_sequence {
  typedef T value_type;
  __KB_HD static constexpr size_t size() noexcept { return sizeof...(I); }
};
template <size_t... I> using index_sequence = integer_sequence<size_t, I...>;
namespace __kb_detail {
template <class S1, class S2> struct seq_cat;
template <class T, T... A, T... B> struct seq_cat<integer_sequence<T, A...>, integer_sequence<T, B...>> {
  typedef integer_sequence<T, A..., (sizeof...(A) + B)...> type;
};
template <class T, size_t N> struct make_seq {
  typedef typename seq_cat<typename make_seq<T, N / 2>::type, typename make_seq<T, N - N / 2>::type>::type type;
};
template <class T> struct make_seq<T, 0> { typedef integer_sequence<T> type; };
template <class T> struct make_seq<T, 1> { typedef integer_sequence<T, 0> type; };
}
template <class T, T N> using make_integer_sequence = typename __kb_detail::make_seq<T, size_t(N)>::type;
template <size_t N> using make_index_sequence = make_integer_sequence<size_t, N>;
template <class... T> using index_sequence_for = make_index_sequence<sizeof...(T)>;
}
)KB";

// --------------------------------------------------------------------------
// __kb/limits.h: std::numeric_limits (constexpr, so device code may use it).
const char* kLimits = R"KB(#pragma once
#include "__kb/config.h"
namespace std {
enum float_round_style {
  round_indeterminate = -1, round_toward_zero = 0, round_to_nearest = 1,
  round_toward_infinity = 2, round_toward_neg_infinity = 3
};
enum float_denorm_style { denorm_indeterminate = -1, denorm_absent = 0, denorm_present = 1 };
namespace __kb_detail {
/* Everything here is a template so that only the numeric_limits a kernel uses
   are instantiated: NVRTC emits every static data member of an instantiated
   class into the image. */
template <class = void> struct limits_base {
  static constexpr bool is_specialized = false;
  static constexpr int digits = 0;
  static constexpr int digits10 = 0;
  static constexpr int max_digits10 = 0;
  static constexpr bool is_signed = false;
  static constexpr bool is_integer = false;
  static constexpr bool is_exact = false;
  static constexpr int radix = 0;
  static constexpr int min_exponent = 0;
  static constexpr int min_exponent10 = 0;
  static constexpr int max_exponent = 0;
  static constexpr int max_exponent10 = 0;
  static constexpr bool has_infinity = false;
  static constexpr bool has_quiet_NaN = false;
  static constexpr bool has_signaling_NaN = false;
  static constexpr float_denorm_style has_denorm = denorm_absent;
  static constexpr bool has_denorm_loss = false;
  static constexpr bool is_iec559 = false;
  static constexpr bool is_bounded = false;
  static constexpr bool is_modulo = false;
  static constexpr bool traps = false;
  static constexpr bool tinyness_before = false;
  static constexpr float_round_style round_style = round_toward_zero;
};
template <class T, bool Signed, int Digits, T Min, T Max, class V> struct int_limits : limits_base<V> {
  static constexpr bool is_specialized = true;
  static constexpr int digits = Digits;
  static constexpr int digits10 = Digits * 643L / 2136;
  static constexpr bool is_signed = Signed;
  static constexpr bool is_integer = true;
  static constexpr bool is_exact = true;
  static constexpr int radix = 2;
  static constexpr bool is_bounded = true;
  static constexpr bool is_modulo = !Signed;
  __KB_HD static constexpr T min() noexcept { return Min; }
  __KB_HD static constexpr T max() noexcept { return Max; }
  __KB_HD static constexpr T lowest() noexcept { return Min; }
  __KB_HD static constexpr T epsilon() noexcept { return T(0); }
  __KB_HD static constexpr T round_error() noexcept { return T(0); }
  __KB_HD static constexpr T infinity() noexcept { return T(0); }
  __KB_HD static constexpr T quiet_NaN() noexcept { return T(0); }
  __KB_HD static constexpr T signaling_NaN() noexcept { return T(0); }
  __KB_HD static constexpr T denorm_min() noexcept { return T(0); }
};
template <class V> struct float_limits_base : limits_base<V> {
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = true;
  static constexpr int radix = 2;
  static constexpr bool has_infinity = true;
  static constexpr bool has_quiet_NaN = true;
  static constexpr bool has_signaling_NaN = true;
  static constexpr float_denorm_style has_denorm = denorm_present;
  static constexpr bool is_iec559 = true;
  static constexpr bool is_bounded = true;
  static constexpr float_round_style round_style = round_to_nearest;
};
template <class T, class V = void> struct lim : limits_base<V> {
  __KB_HD static constexpr T min() noexcept { return T(); }
  __KB_HD static constexpr T max() noexcept { return T(); }
  __KB_HD static constexpr T lowest() noexcept { return T(); }
  __KB_HD static constexpr T epsilon() noexcept { return T(); }
  __KB_HD static constexpr T round_error() noexcept { return T(); }
  __KB_HD static constexpr T infinity() noexcept { return T(); }
  __KB_HD static constexpr T quiet_NaN() noexcept { return T(); }
  __KB_HD static constexpr T signaling_NaN() noexcept { return T(); }
  __KB_HD static constexpr T denorm_min() noexcept { return T(); }
};
template <class V> struct lim<bool, V> : int_limits<bool, false, 1, false, true, V> {
  static constexpr int digits10 = 0;
  static constexpr bool is_modulo = false;
};
template <class V> struct lim<char, V> : int_limits<char, (char(-1) < char(0)), (char(-1) < char(0)) ? 7 : 8, char(CHAR_MIN), char(CHAR_MAX), V> {};
template <class V> struct lim<signed char, V> : int_limits<signed char, true, 7, (signed char)(-128), (signed char)127, V> {};
template <class V> struct lim<unsigned char, V> : int_limits<unsigned char, false, 8, (unsigned char)0, (unsigned char)255, V> {};
template <class V> struct lim<short, V> : int_limits<short, true, 15, (short)(-32767 - 1), (short)32767, V> {};
template <class V> struct lim<unsigned short, V> : int_limits<unsigned short, false, 16, (unsigned short)0, (unsigned short)65535, V> {};
template <class V> struct lim<int, V> : int_limits<int, true, 31, (-2147483647 - 1), 2147483647, V> {};
template <class V> struct lim<unsigned int, V> : int_limits<unsigned int, false, 32, 0u, 4294967295u, V> {};
template <class V> struct lim<long, V> : int_limits<long, true, 63, (-9223372036854775807L - 1), 9223372036854775807L, V> {};
template <class V> struct lim<unsigned long, V> : int_limits<unsigned long, false, 64, 0ul, 18446744073709551615ul, V> {};
template <class V> struct lim<long long, V> : int_limits<long long, true, 63, (-9223372036854775807LL - 1), 9223372036854775807LL, V> {};
template <class V> struct lim<unsigned long long, V> : int_limits<unsigned long long, false, 64, 0ull, 18446744073709551615ull, V> {};
template <class V> struct lim<wchar_t, V> : int_limits<wchar_t, true, 31, wchar_t(-2147483647 - 1), wchar_t(2147483647), V> {};
template <class V> struct lim<char16_t, V> : int_limits<char16_t, false, 16, char16_t(0), char16_t(65535), V> {};
template <class V> struct lim<char32_t, V> : int_limits<char32_t, false, 32, char32_t(0), char32_t(4294967295u), V> {};
template <class V> struct lim<float, V> : float_limits_base<V> {
  static constexpr int digits = 24;
  static constexpr int digits10 = 6;
  static constexpr int max_digits10 = 9;
  static constexpr int min_exponent = -125;
  static constexpr int min_exponent10 = -37;
  static constexpr int max_exponent = 128;
  static constexpr int max_exponent10 = 38;
  __KB_HD static constexpr float min() noexcept { return 1.17549435082228750796873653722224568e-38F; }
  __KB_HD static constexpr float max() noexcept { return 3.40282346638528859811704183484516925e+38F; }
  __KB_HD static constexpr float lowest() noexcept { return -3.40282346638528859811704183484516925e+38F; }
  __KB_HD static constexpr float epsilon() noexcept { return 1.19209289550781250000000000000000000e-7F; }
  __KB_HD static constexpr float round_error() noexcept { return 0.5F; }
  __KB_HD static constexpr float infinity() noexcept { return __builtin_bit_cast(float, 0x7f800000u); }
  __KB_HD static constexpr float quiet_NaN() noexcept { return __builtin_bit_cast(float, 0x7fc00000u); }
  __KB_HD static constexpr float signaling_NaN() noexcept { return __builtin_bit_cast(float, 0x7fa00000u); }
  __KB_HD static constexpr float denorm_min() noexcept { return 1.40129846432481707092372958328991613e-45F; }
};
template <class V> struct lim<double, V> : float_limits_base<V> {
  static constexpr int digits = 53;
  static constexpr int digits10 = 15;
  static constexpr int max_digits10 = 17;
  static constexpr int min_exponent = -1021;
  static constexpr int min_exponent10 = -307;
  static constexpr int max_exponent = 1024;
  static constexpr int max_exponent10 = 308;
  __KB_HD static constexpr double min() noexcept { return 2.22507385850720138309023271733240406e-308; }
  __KB_HD static constexpr double max() noexcept { return 1.79769313486231570814527423731704357e+308; }
  __KB_HD static constexpr double lowest() noexcept { return -1.79769313486231570814527423731704357e+308; }
  __KB_HD static constexpr double epsilon() noexcept { return 2.22044604925031308084726333618164062e-16; }
  __KB_HD static constexpr double round_error() noexcept { return 0.5; }
  __KB_HD static constexpr double infinity() noexcept { return __builtin_bit_cast(double, 0x7ff0000000000000ull); }
  __KB_HD static constexpr double quiet_NaN() noexcept { return __builtin_bit_cast(double, 0x7ff8000000000000ull); }
  __KB_HD static constexpr double signaling_NaN() noexcept { return __builtin_bit_cast(double, 0x7ff4000000000000ull); }
  __KB_HD static constexpr double denorm_min() noexcept { return 4.94065645841246544176568792868221372e-324; }
};
}
template <class T> struct numeric_limits : __kb_detail::lim<T> {};
template <class T> struct numeric_limits<const T> : numeric_limits<T> {};
template <class T> struct numeric_limits<volatile T> : numeric_limits<T> {};
template <class T> struct numeric_limits<const volatile T> : numeric_limits<T> {};
}
)KB";

// --------------------------------------------------------------------------
// __kb/minmax.h: std::min and std::max (libstdc++'s <cmath> drags them in)
// and std::swap where it is constexpr (C++20).
const char* kMinMax = R"KB(#pragma once
#include "__kb/config.h"
namespace std {
template <class T> __KB_HD constexpr const T& min(const T& a, const T& b) { return (b < a) ? b : a; }
template <class T> __KB_HD constexpr const T& max(const T& a, const T& b) { return (a < b) ? b : a; }
template <class T, class C> __KB_HD constexpr const T& min(const T& a, const T& b, C comp) { return comp(b, a) ? b : a; }
template <class T, class C> __KB_HD constexpr const T& max(const T& a, const T& b, C comp) { return comp(a, b) ? b : a; }
#if __KB_CXX20
template <class T> __KB_HD constexpr void swap(T& a, T& b) noexcept { T t = static_cast<T&&>(a); a = static_cast<T&&>(b); b = static_cast<T&&>(t); }
template <class T, size_t N> __KB_HD constexpr void swap(T (&a)[N], T (&b)[N]) noexcept { for (size_t i = 0; i < N; ++i) swap(a[i], b[i]); }
#endif
}
)KB";

// --------------------------------------------------------------------------
// __kb/pair.h: std::pair, make_pair and their tuple protocol.
const char* kPair = R"KB(#pragma once
#include "__kb/type_traits.h"
namespace std {
struct piecewise_construct_t { explicit piecewise_construct_t() = default; };
template <class T1, class T2> struct pair {
  typedef T1 first_type;
  typedef T2 second_type;
  T1 first;
  T2 second;
  __KB_HD constexpr pair() : first(), second() {}
  __KB_HD constexpr pair(const T1& a, const T2& b) : first(a), second(b) {}
  template <class U1, class U2, class = enable_if_t<is_constructible<T1, U1&&>::value && is_constructible<T2, U2&&>::value>>
  __KB_HD constexpr pair(U1&& a, U2&& b) : first(static_cast<U1&&>(a)), second(static_cast<U2&&>(b)) {}
  template <class U1, class U2>
  __KB_HD constexpr pair(const pair<U1, U2>& p) : first(p.first), second(p.second) {}
  template <class U1, class U2>
  __KB_HD constexpr pair(pair<U1, U2>&& p) : first(static_cast<U1&&>(p.first)), second(static_cast<U2&&>(p.second)) {}
  pair(const pair&) = default;
  pair(pair&&) = default;
  __KB_HD constexpr pair& operator=(const pair& p) { first = p.first; second = p.second; return *this; }
  template <class U1, class U2>
  __KB_HD constexpr pair& operator=(const pair<U1, U2>& p) { first = p.first; second = p.second; return *this; }
};
#if __KB_CXX17
template <class T1, class T2> pair(T1, T2) -> pair<T1, T2>;
#endif
template <class T1, class T2> __KB_HD constexpr bool operator==(const pair<T1, T2>& a, const pair<T1, T2>& b) { return a.first == b.first && a.second == b.second; }
template <class T1, class T2> __KB_HD constexpr bool operator!=(const pair<T1, T2>& a, const pair<T1, T2>& b) { return !(a == b); }
template <class T1, class T2> __KB_HD constexpr bool operator<(const pair<T1, T2>& a, const pair<T1, T2>& b) { return a.first < b.first || (!(b.first < a.first) && a.second < b.second); }
template <class T1, class T2> __KB_HD constexpr bool operator>(const pair<T1, T2>& a, const pair<T1, T2>& b) { return b < a; }
template <class T1, class T2> __KB_HD constexpr bool operator<=(const pair<T1, T2>& a, const pair<T1, T2>& b) { return !(b < a); }
template <class T1, class T2> __KB_HD constexpr bool operator>=(const pair<T1, T2>& a, const pair<T1, T2>& b) { return !(a < b); }
template <class T1, class T2> __KB_HD constexpr pair<decay_t<T1>, decay_t<T2>> make_pair(T1&& a, T2&& b) {
  return pair<decay_t<T1>, decay_t<T2>>(static_cast<T1&&>(a), static_cast<T2&&>(b));
}
/* variadic, as libcu++ declares them under NVRTC for structured bindings */
template <class... T> struct tuple_size;
template <size_t I, class... T> struct tuple_element;
template <class T1, class T2> struct tuple_size<pair<T1, T2>> : integral_constant<size_t, 2> {};
template <class T1, class T2> struct tuple_element<0, pair<T1, T2>> { typedef T1 type; };
template <class T1, class T2> struct tuple_element<1, pair<T1, T2>> { typedef T2 type; };
template <size_t I, class T> using tuple_element_t = typename tuple_element<I, T>::type;
namespace __kb_detail {
template <size_t I> struct pair_get;
template <> struct pair_get<0> {
  template <class P> __KB_HD static constexpr auto& get(P& p) { return p.first; }
};
template <> struct pair_get<1> {
  template <class P> __KB_HD static constexpr auto& get(P& p) { return p.second; }
};
}
template <size_t I, class T1, class T2> __KB_HD constexpr tuple_element_t<I, pair<T1, T2>>& get(pair<T1, T2>& p) noexcept { return __kb_detail::pair_get<I>::get(p); }
template <size_t I, class T1, class T2> __KB_HD constexpr const tuple_element_t<I, pair<T1, T2>>& get(const pair<T1, T2>& p) noexcept { return __kb_detail::pair_get<I>::get(p); }
template <size_t I, class T1, class T2> __KB_HD constexpr tuple_element_t<I, pair<T1, T2>>&& get(pair<T1, T2>&& p) noexcept { return static_cast<tuple_element_t<I, pair<T1, T2>>&&>(__kb_detail::pair_get<I>::get(p)); }
}
)KB";

// --------------------------------------------------------------------------
// __kb/math_macros.h: glibc's <math.h> macros (nvcc gives them without an include).
const char* kMathMacros = R"KB(#pragma once
/* libcu++'s <cuda/std/cmath> (which CUB and other CCCL headers include)
   redefines INFINITY and NAN its own way under NVRTC; when the source includes
   CCCL headers (__KB_CCCL) that redefinition's warning #47 is silenced. */
#ifdef __KB_CCCL
#pragma nv_diag_suppress 47
#endif
#ifndef INFINITY
#define INFINITY (__builtin_bit_cast(float, 0x7f800000u))
#endif
#ifndef NAN
#define NAN (__builtin_bit_cast(float, 0x7fc00000u))
#endif
#ifndef HUGE_VALF
#define HUGE_VALF (__builtin_bit_cast(float, 0x7f800000u))
#endif
#ifndef HUGE_VAL
#define HUGE_VAL (__builtin_bit_cast(double, 0x7ff0000000000000ull))
#endif
#ifndef HUGE_VALL
#define HUGE_VALL ((long double)HUGE_VAL)
#endif
#ifndef MAXFLOAT
#define MAXFLOAT 3.40282346638528859812e+38F
#endif
#define FP_NAN 0
#define FP_INFINITE 1
#define FP_ZERO 2
#define FP_SUBNORMAL 3
#define FP_NORMAL 4
#define FP_ILOGB0 (-2147483647 - 1)
#define FP_ILOGBNAN (-2147483647 - 1)
#define MATH_ERRNO 1
#define MATH_ERREXCEPT 2
#define math_errhandling (MATH_ERRNO | MATH_ERREXCEPT)
#define M_E 2.7182818284590452354
#define M_LOG2E 1.4426950408889634074
#define M_LOG10E 0.43429448190325182765
#define M_LN2 0.69314718055994530942
#define M_LN10 2.30258509299404568402
#define M_PI 3.14159265358979323846
#define M_PI_2 1.57079632679489661923
#define M_PI_4 0.78539816339744830962
#define M_1_PI 0.31830988618379067154
#define M_2_PI 0.63661977236758134308
#define M_2_SQRTPI 1.12837916709551257390
#define M_SQRT2 1.41421356237309504880
#define M_SQRT1_2 0.70710678118654752440
#define M_Ef 2.7182818284590452354f
#define M_LOG2Ef 1.4426950408889634074f
#define M_LOG10Ef 0.43429448190325182765f
#define M_LN2f 0.69314718055994530942f
#define M_LN10f 2.30258509299404568402f
#define M_PIf 3.14159265358979323846f
#define M_PI_2f 1.57079632679489661923f
#define M_PI_4f 0.78539816339744830962f
#define M_1_PIf 0.31830988618379067154f
#define M_2_PIf 0.63661977236758134308f
#define M_2_SQRTPIf 1.12837916709551257390f
#define M_SQRT2f 1.41421356237309504880f
#define M_SQRT1_2f 0.70710678118654752440f
#define M_El 2.718281828459045235360287471352662498L
#define M_LOG2El 1.442695040888963407359924681001892137L
#define M_LOG10El 0.434294481903251827651128918916605082L
#define M_LN2l 0.693147180559945309417232121458176568L
#define M_LN10l 2.302585092994045684017991454684364208L
#define M_PIl 3.141592653589793238462643383279502884L
#define M_PI_2l 1.570796326794896619231321691639751442L
#define M_PI_4l 0.785398163397448309615660845819875721L
#define M_1_PIl 0.318309886183790671537767526745028724L
#define M_2_PIl 0.636619772367581343075535053490057448L
#define M_2_SQRTPIl 1.128379167095512573896158903121545172L
#define M_SQRT2l 1.414213562373095048801688724209698079L
#define M_SQRT1_2l 0.707106781186547524400844362104849039L

)KB";

// __kb/math_global.h: the classification functions libstdc++ adds to <math.h>.
const char* kMathGlobal = R"KB(#pragma once
#include "__kb/config.h"
#include "__kb/math_macros.h"
/* Two tiny traits instead of <type_traits> (which costs NVRTC ~5 ms). */
namespace std { namespace __kb_detail {
template <class T> struct int_as_double {};
template <> struct int_as_double<bool> { typedef double type; };
template <> struct int_as_double<char> { typedef double type; };
template <> struct int_as_double<signed char> { typedef double type; };
template <> struct int_as_double<unsigned char> { typedef double type; };
template <> struct int_as_double<short> { typedef double type; };
template <> struct int_as_double<unsigned short> { typedef double type; };
template <> struct int_as_double<int> { typedef double type; };
template <> struct int_as_double<unsigned int> { typedef double type; };
template <> struct int_as_double<long> { typedef double type; };
template <> struct int_as_double<unsigned long> { typedef double type; };
template <> struct int_as_double<long long> { typedef double type; };
template <> struct int_as_double<unsigned long long> { typedef double type; };
template <class A, class B> struct cmp_type { typedef decltype(A() + B()) type; };
template <class A, class B, class = typename int_as_double<A>::type, class = typename int_as_double<B>::type>
__KB_HD double cmp_pick(int);
template <class A, class B> __KB_HD typename cmp_type<A, B>::type cmp_pick(...);
} }
/* What CUDA's device math lacks and libstdc++ provides as functions. */
typedef float float_t;
typedef double double_t;
#define __KB_FPCLASSIFY(T, BITS, EXPMASK, MANTMASK)                                   \
  __KB_HDI int fpclassify(T x) {                                                       \
    BITS b = __builtin_bit_cast(BITS, x);                                              \
    BITS e = b & EXPMASK, m = b & MANTMASK;                                            \
    return e == EXPMASK ? (m ? FP_NAN : FP_INFINITE) : e == 0 ? (m ? FP_SUBNORMAL : FP_ZERO) : FP_NORMAL; \
  }                                                                                    \
  __KB_HDI bool isnormal(T x) { return fpclassify(x) == FP_NORMAL; }
__KB_FPCLASSIFY(float, unsigned int, 0x7f800000u, 0x007fffffu)
__KB_FPCLASSIFY(double, unsigned long long, 0x7ff0000000000000ull, 0x000fffffffffffffull)
#undef __KB_FPCLASSIFY
template <class T, class = typename std::__kb_detail::int_as_double<T>::type> __KB_HDI int fpclassify(T x) { return x == 0 ? FP_ZERO : FP_NORMAL; }
template <class T, class = typename std::__kb_detail::int_as_double<T>::type> __KB_HDI bool isnormal(T x) { return x != 0; }
#define __KB_CMP(NAME, EXPR)                                                              \
  template <class A, class B> __KB_HDI bool NAME(A a, B b) {                             \
    typedef decltype(std::__kb_detail::cmp_pick<A, B>(0)) C;                             \
    C x = C(a), y = C(b);                                                                \
    return EXPR;                                                                         \
  }
__KB_CMP(isgreater, x > y)
__KB_CMP(isgreaterequal, x >= y)
__KB_CMP(isless, x < y)
__KB_CMP(islessequal, x <= y)
__KB_CMP(islessgreater, x < y || x > y)
__KB_CMP(isunordered, x != x || y != y)
#undef __KB_CMP

)KB";

// __kb/math.h: std:: math as libstdc++'s <cmath> declares it.
const char* kMath = R"KB(#pragma once
#include "__kb/math_global.h"
namespace std {
using ::float_t; using ::double_t;
using ::abs; using ::labs; using ::llabs;
using ::acos; using ::acosh; using ::acoshf; using ::asin; using ::asinh; using ::asinhf; using ::atan;
using ::atan2; using ::atanh; using ::atanhf; using ::cbrt; using ::cbrtf; using ::ceil; using ::copysign;
using ::copysignf; using ::cos; using ::cosh; using ::erf; using ::erfc; using ::erfcf; using ::erff;
using ::exp; using ::exp2; using ::exp2f; using ::expm1; using ::expm1f; using ::fabs; using ::fdim;
using ::fdimf; using ::floor; using ::fma; using ::fmaf; using ::fmax; using ::fmaxf; using ::fmin;
using ::fminf; using ::fmod; using ::frexp; using ::hypot; using ::hypotf; using ::ilogb; using ::ilogbf;
using ::ldexp; using ::lgamma; using ::lgammaf; using ::llrint; using ::llrintf; using ::llround;
using ::llroundf; using ::log; using ::log10; using ::log1p; using ::log1pf; using ::log2; using ::log2f;
using ::logb; using ::logbf; using ::lrint; using ::lrintf; using ::lround; using ::lroundf; using ::modf;
using ::nan; using ::nanf; using ::nearbyint; using ::nearbyintf; using ::nextafter; using ::nextafterf;
using ::pow; using ::remainder; using ::remainderf; using ::remquo; using ::remquof; using ::rint;
using ::rintf; using ::round; using ::roundf; using ::scalbln; using ::scalblnf; using ::scalbn;
using ::scalbnf; using ::sin; using ::sinh; using ::sqrt; using ::tan; using ::tanh; using ::tgamma;
using ::tgammaf; using ::trunc; using ::truncf;
using ::isfinite; using ::isinf; using ::isnan; using ::signbit;
using ::fpclassify; using ::isnormal; using ::isgreater; using ::isgreaterequal; using ::isless;
using ::islessequal; using ::islessgreater; using ::isunordered;
/* Integer arguments go through double, as in libstdc++. */
#define __KB_INT1(NAME)                                                                 \
  template <class T> __KB_HDI typename __kb_detail::int_as_double<T>::type NAME(T x) {      \
    return ::NAME(double(x));                                                           \
  }
__KB_INT1(acos) __KB_INT1(acosh) __KB_INT1(asin) __KB_INT1(asinh) __KB_INT1(atan) __KB_INT1(atanh)
__KB_INT1(cbrt) __KB_INT1(ceil) __KB_INT1(cos) __KB_INT1(cosh) __KB_INT1(erf) __KB_INT1(erfc)
__KB_INT1(exp) __KB_INT1(exp2) __KB_INT1(expm1) __KB_INT1(floor) __KB_INT1(lgamma) __KB_INT1(log)
__KB_INT1(log10) __KB_INT1(log1p) __KB_INT1(log2) __KB_INT1(logb) __KB_INT1(nearbyint) __KB_INT1(rint)
__KB_INT1(round) __KB_INT1(sin) __KB_INT1(sinh) __KB_INT1(sqrt) __KB_INT1(tan) __KB_INT1(tanh)
__KB_INT1(tgamma) __KB_INT1(trunc)
#undef __KB_INT1
}
)KB";

// --------------------------------------------------------------------------
// Standard headers.
const char* kCmath = R"KB(#pragma once
#include "__kb/math.h"
)KB";

const char* kCfloat = R"KB(#pragma once
#include "__kb/config.h"
#define FLT_RADIX 2
#define FLT_MANT_DIG 24
#define DBL_MANT_DIG 53
#define LDBL_MANT_DIG DBL_MANT_DIG
#define FLT_DIG 6
#define DBL_DIG 15
#define LDBL_DIG DBL_DIG
#define FLT_DECIMAL_DIG 9
#define DBL_DECIMAL_DIG 17
#define DECIMAL_DIG 17
#define FLT_MIN_EXP (-125)
#define DBL_MIN_EXP (-1021)
#define FLT_MIN_10_EXP (-37)
#define DBL_MIN_10_EXP (-307)
#define FLT_MAX_EXP 128
#define DBL_MAX_EXP 1024
#define FLT_MAX_10_EXP 38
#define DBL_MAX_10_EXP 308
#define FLT_MAX 3.40282346638528859811704183484516925e+38F
#define DBL_MAX 1.79769313486231570814527423731704357e+308
#define FLT_EPSILON 1.19209289550781250000000000000000000e-7F
#define DBL_EPSILON 2.22044604925031308084726333618164062e-16
#define FLT_MIN 1.17549435082228750796873653722224568e-38F
#define DBL_MIN 2.22507385850720138309023271733240406e-308
#define FLT_TRUE_MIN 1.40129846432481707092372958328991613e-45F
#define DBL_TRUE_MIN 4.94065645841246544176568792868221372e-324
#define FLT_EVAL_METHOD 0
#define FLT_ROUNDS 1
#define FLT_HAS_SUBNORM 1
#define DBL_HAS_SUBNORM 1
)KB";

const char* kStdint = R"KB(#pragma once
#include "__kb/config.h"
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef int8_t int_least8_t;
typedef int16_t int_least16_t;
typedef int32_t int_least32_t;
typedef int64_t int_least64_t;
typedef uint8_t uint_least8_t;
typedef uint16_t uint_least16_t;
typedef uint32_t uint_least32_t;
#ifdef __KB_LL64
/* libcu++'s <cuda/std/cstdint> under NVRTC: types and macro spellings */
typedef unsigned long long uint64_t;
typedef int8_t int_fast8_t;
typedef int16_t int_fast16_t;
typedef int32_t int_fast32_t;
typedef int64_t int_fast64_t;
typedef uint8_t uint_fast8_t;
typedef uint16_t uint_fast16_t;
typedef uint32_t uint_fast32_t;
typedef uint64_t uint_fast64_t;
typedef int64_t intptr_t;
typedef uint64_t uintptr_t;
typedef int64_t intmax_t;
typedef uint64_t uintmax_t;
#else
/* glibc's <stdint.h> on x86-64 and aarch64 */
typedef unsigned long uint64_t;
typedef signed char int_fast8_t;
typedef long int_fast16_t;
typedef long int_fast32_t;
typedef long int_fast64_t;
typedef unsigned char uint_fast8_t;
typedef unsigned long uint_fast16_t;
typedef unsigned long uint_fast32_t;
typedef unsigned long uint_fast64_t;
typedef long intptr_t;
typedef unsigned long uintptr_t;
typedef long intmax_t;
typedef unsigned long uintmax_t;
#endif
typedef uint64_t uint_least64_t;
#ifndef INT8_MIN
#  define INT8_MIN   SCHAR_MIN
#  define INT16_MIN  SHRT_MIN
#  define INT32_MIN  INT_MIN
#  define INT8_MAX   SCHAR_MAX
#  define INT16_MAX  SHRT_MAX
#  define INT32_MAX  INT_MAX
#  define UINT8_MAX  UCHAR_MAX
#  define UINT16_MAX USHRT_MAX
#  define UINT32_MAX UINT_MAX
#  define INT_LEAST8_MIN   INT8_MIN
#  define INT_LEAST16_MIN  INT16_MIN
#  define INT_LEAST32_MIN  INT32_MIN
#  define INT_LEAST64_MIN  INT64_MIN
#  define INT_LEAST8_MAX   INT8_MAX
#  define INT_LEAST16_MAX  INT16_MAX
#  define INT_LEAST32_MAX  INT32_MAX
#  define INT_LEAST64_MAX  INT64_MAX
#  define UINT_LEAST8_MAX  UINT8_MAX
#  define UINT_LEAST16_MAX UINT16_MAX
#  define UINT_LEAST32_MAX UINT32_MAX
#  define UINT_LEAST64_MAX UINT64_MAX
#  define INT8_C(X)   ((::int_least8_t)(X))
#  define INT16_C(X)  ((::int_least16_t)(X))
#  define INT32_C(X)  ((::int_least32_t)(X))
#  define INT64_C(X)  ((::int_least64_t)(X))
#  define UINT8_C(X)  ((::uint_least8_t)(X))
#  define UINT16_C(X) ((::uint_least16_t)(X))
#  define UINT32_C(X) ((::uint_least32_t)(X))
#  define UINT64_C(X) ((::uint_least64_t)(X))
#  define INTMAX_C(X)  ((::intmax_t)(X))
#  define UINTMAX_C(X) ((::uintmax_t)(X))
#  ifdef __KB_LL64
#    define INT64_MIN  LLONG_MIN
#    define INT64_MAX  LLONG_MAX
#    define UINT64_MAX ULLONG_MAX
#    define INT_FAST8_MIN   INT8_MIN
#    define INT_FAST16_MIN  INT16_MIN
#    define INT_FAST32_MIN  INT32_MIN
#    define INT_FAST64_MIN  INT64_MIN
#    define INT_FAST8_MAX   INT8_MAX
#    define INT_FAST16_MAX  INT16_MAX
#    define INT_FAST32_MAX  INT32_MAX
#    define INT_FAST64_MAX  INT64_MAX
#    define UINT_FAST8_MAX  UINT8_MAX
#    define UINT_FAST16_MAX UINT16_MAX
#    define UINT_FAST32_MAX UINT32_MAX
#    define UINT_FAST64_MAX UINT64_MAX
#    define INTPTR_MIN  INT64_MIN
#    define INTPTR_MAX  INT64_MAX
#    define UINTPTR_MAX UINT64_MAX
#    define INTMAX_MIN  INT64_MIN
#    define INTMAX_MAX  INT64_MAX
#    define UINTMAX_MAX UINT64_MAX
#    define PTRDIFF_MIN INT64_MIN
#    define PTRDIFF_MAX INT64_MAX
#    define SIZE_MAX UINT64_MAX
#  else
#    define INT64_MIN  (-9223372036854775807L - 1)
#    define INT64_MAX  9223372036854775807L
#    define UINT64_MAX 18446744073709551615UL
#    define INT_FAST8_MIN   INT8_MIN
#    define INT_FAST16_MIN  INT64_MIN
#    define INT_FAST32_MIN  INT64_MIN
#    define INT_FAST64_MIN  INT64_MIN
#    define INT_FAST8_MAX   INT8_MAX
#    define INT_FAST16_MAX  INT64_MAX
#    define INT_FAST32_MAX  INT64_MAX
#    define INT_FAST64_MAX  INT64_MAX
#    define UINT_FAST8_MAX  UINT8_MAX
#    define UINT_FAST16_MAX UINT64_MAX
#    define UINT_FAST32_MAX UINT64_MAX
#    define UINT_FAST64_MAX UINT64_MAX
#    define INTPTR_MIN  INT64_MIN
#    define INTPTR_MAX  INT64_MAX
#    define UINTPTR_MAX UINT64_MAX
#    define INTMAX_MIN  INT64_MIN
#    define INTMAX_MAX  INT64_MAX
#    define UINTMAX_MAX UINT64_MAX
#    define PTRDIFF_MIN INT64_MIN
#    define PTRDIFF_MAX INT64_MAX
#    define SIZE_MAX UINT64_MAX
#  endif
#endif
)KB";

const char* kCstdint = R"KB(#pragma once
#include "__kb/stdint.h"
namespace std {
using ::int8_t; using ::int16_t; using ::int32_t; using ::int64_t;
using ::uint8_t; using ::uint16_t; using ::uint32_t; using ::uint64_t;
using ::int_least8_t; using ::int_least16_t; using ::int_least32_t; using ::int_least64_t;
using ::uint_least8_t; using ::uint_least16_t; using ::uint_least32_t; using ::uint_least64_t;
using ::int_fast8_t; using ::int_fast16_t; using ::int_fast32_t; using ::int_fast64_t;
using ::uint_fast8_t; using ::uint_fast16_t; using ::uint_fast32_t; using ::uint_fast64_t;
using ::intptr_t; using ::uintptr_t; using ::intmax_t; using ::uintmax_t;
}
)KB";

const char* kInttypes = R"KB(#pragma once
#include "__kb/stdint.h"
#define PRId8 "d"
#define PRId16 "d"
#define PRId32 "d"
#define PRIi8 "i"
#define PRIi16 "i"
#define PRIi32 "i"
#define PRIu8 "u"
#define PRIu16 "u"
#define PRIu32 "u"
#define PRIx8 "x"
#define PRIx16 "x"
#define PRIx32 "x"
#define PRIX8 "X"
#define PRIX16 "X"
#define PRIX32 "X"
#define PRIo32 "o"
#ifdef __KB_LL64
#define __KB_PRI64 "ll"
#else
#define __KB_PRI64 "l"
#endif
#define PRId64 __KB_PRI64 "d"
#define PRIi64 __KB_PRI64 "i"
#define PRIu64 __KB_PRI64 "u"
#define PRIx64 __KB_PRI64 "x"
#define PRIX64 __KB_PRI64 "X"
#define PRIo64 __KB_PRI64 "o"
#define PRIdPTR __KB_PRI64 "d"
#define PRIuPTR __KB_PRI64 "u"
#define PRIxPTR __KB_PRI64 "x"
#define PRIdMAX __KB_PRI64 "d"
#define PRIuMAX __KB_PRI64 "u"
)KB";

const char* kCinttypes = R"KB(#pragma once
#include "__kb/cstdint.h"
#include "__kb/inttypes.h"
)KB";

const char* kCstddef = R"KB(#pragma once
#include "__kb/config.h"
namespace std {
typedef struct { alignas(16) long long __a; } max_align_t;
#if __KB_CXX17
__KB_HD constexpr byte operator|(byte a, byte b) noexcept { return byte((unsigned char)a | (unsigned char)b); }
__KB_HD constexpr byte operator&(byte a, byte b) noexcept { return byte((unsigned char)a & (unsigned char)b); }
__KB_HD constexpr byte operator^(byte a, byte b) noexcept { return byte((unsigned char)a ^ (unsigned char)b); }
__KB_HD constexpr byte operator~(byte a) noexcept { return byte(~(unsigned char)a); }
__KB_HD constexpr byte& operator|=(byte& a, byte b) noexcept { return a = a | b; }
__KB_HD constexpr byte& operator&=(byte& a, byte b) noexcept { return a = a & b; }
__KB_HD constexpr byte& operator^=(byte& a, byte b) noexcept { return a = a ^ b; }
template <class I> __KB_HD constexpr I to_integer(byte b) noexcept { return I(b); }
#endif
}
typedef std::max_align_t max_align_t;
)KB";

const char* kStddefH = R"KB(#pragma once
#include "__kb/config.h"
)KB";

const char* kCstdio = R"KB(#pragma once
#include "__kb/config.h"
/* Device printf is built into NVRTC; the rest of stdio is host-only. */
namespace std { using ::printf; }
)KB";

const char* kStdioH = R"KB(#pragma once
#include "__kb/config.h"
)KB";

const char* kCstring = R"KB(#pragma once
#include "__kb/config.h"
/* memcpy and memset are device functions; the rest of <cstring> is host-only. */
namespace std { using ::memcpy; using ::memset; using ::size_t; }
)KB";

const char* kStringH = R"KB(#pragma once
#include "__kb/config.h"
)KB";

const char* kCstdlib = R"KB(#pragma once
#include "__kb/math.h"
/* Device malloc/free and abs are built in; the rest of <cstdlib> is host-only. */
namespace std { using ::malloc; using ::free; }
)KB";

// <cassert>/<assert.h> are re-includable: NDEBUG is looked at each time.
const char* kCassert = R"KB(
#undef assert
#ifdef NDEBUG
#define assert(e) (static_cast<void>(0))
#else
#define assert(e) ((e) ? static_cast<void>(0) : __assertfail(#e, __FILE__, __LINE__, __PRETTY_FUNCTION__, sizeof(char)))
#endif
)KB";

const char* kClimits = R"KB(#pragma once
#include "__kb/config.h"
)KB";

const char* kLimitsStd = R"KB(#pragma once
#include "__kb/limits.h"
)KB";

const char* kTypeTraitsStd = R"KB(#pragma once
#include "__kb/type_traits.h"
)KB";

const char* kUtilityStd = R"KB(#pragma once
#include "__kb/minmax.h"
#include "__kb/pair.h"
namespace std {
#if __KB_CXX17
template <class T> __KB_HD constexpr add_const_t<T>& as_const(T& t) noexcept { return t; }
template <class T> void as_const(const T&&) = delete;
#endif
#if __KB_CXX20
template <class T, class U = T> __KB_HD constexpr T exchange(T& o, U&& v) { T old = static_cast<T&&>(o); o = static_cast<U&&>(v); return old; }
#endif
}
)KB";

const char* kAlgorithm = R"KB(#pragma once
#include "__kb/minmax.h"
#include "__kb/pair.h"
/* The constexpr algorithms (callable from device code with relaxed constexpr). */
namespace std {
template <class T> __KB_HD constexpr T min(initializer_list<T> l) { const T* p = l.begin(); T m = *p; for (++p; p != l.end(); ++p) if (*p < m) m = *p; return m; }
template <class T> __KB_HD constexpr T max(initializer_list<T> l) { const T* p = l.begin(); T m = *p; for (++p; p != l.end(); ++p) if (m < *p) m = *p; return m; }
template <class T> __KB_HD constexpr pair<const T&, const T&> minmax(const T& a, const T& b) { return (b < a) ? pair<const T&, const T&>(b, a) : pair<const T&, const T&>(a, b); }
#if __KB_CXX17
template <class T> __KB_HD constexpr const T& clamp(const T& v, const T& lo, const T& hi) { return (v < lo) ? lo : (hi < v) ? hi : v; }
template <class T, class C> __KB_HD constexpr const T& clamp(const T& v, const T& lo, const T& hi, C comp) { return comp(v, lo) ? lo : comp(hi, v) ? hi : v; }
#endif
}
)KB";

const char* kFunctional = R"KB(#pragma once
#include "__kb/type_traits.h"
/* The function objects, constexpr since C++14. */
namespace std {
#define __KB_BINOP(NAME, OP, R)                                                               \
  template <class T = void> struct NAME {                                                     \
    __KB_HD constexpr R operator()(const T& a, const T& b) const { return a OP b; }           \
  };                                                                                          \
  template <> struct NAME<void> {                                                             \
    typedef void is_transparent;                                                              \
    template <class A, class B> __KB_HD constexpr auto operator()(A&& a, B&& b) const         \
        -> decltype(static_cast<A&&>(a) OP static_cast<B&&>(b)) { return static_cast<A&&>(a) OP static_cast<B&&>(b); } \
  };
__KB_BINOP(plus, +, T) __KB_BINOP(minus, -, T) __KB_BINOP(multiplies, *, T) __KB_BINOP(divides, /, T)
__KB_BINOP(modulus, %, T) __KB_BINOP(equal_to, ==, bool) __KB_BINOP(not_equal_to, !=, bool)
__KB_BINOP(greater, >, bool) __KB_BINOP(less, <, bool) __KB_BINOP(greater_equal, >=, bool)
__KB_BINOP(less_equal, <=, bool) __KB_BINOP(logical_and, &&, bool) __KB_BINOP(logical_or, ||, bool)
__KB_BINOP(bit_and, &, T) __KB_BINOP(bit_or, |, T) __KB_BINOP(bit_xor, ^, T)
#undef __KB_BINOP
template <class T = void> struct negate { __KB_HD constexpr T operator()(const T& a) const { return -a; } };
template <class T = void> struct logical_not { __KB_HD constexpr bool operator()(const T& a) const { return !a; } };
template <class T = void> struct bit_not { __KB_HD constexpr T operator()(const T& a) const { return ~a; } };
}
)KB";

const char* kNumeric = R"KB(#pragma once
#include "__kb/type_traits.h"
namespace std {
#if __KB_CXX17
template <class M, class N> __KB_HD constexpr common_type_t<M, N> gcd(M m, N n) {
  typedef make_unsigned_t<common_type_t<M, N>> U;
  U a = m < 0 ? U(-m) : U(m), b = n < 0 ? U(-n) : U(n);
  while (b != 0) { U t = a % b; a = b; b = t; }
  return common_type_t<M, N>(a);
}
template <class M, class N> __KB_HD constexpr common_type_t<M, N> lcm(M m, N n) {
  if (m == 0 || n == 0) return 0;
  common_type_t<M, N> g = gcd(m, n), a = m < 0 ? -m : m, b = n < 0 ? -n : n;
  return (a / g) * b;
}
#endif
}
)KB";

// std::array: an aggregate whose members are constexpr (C++17), so nvcc with
// relaxed constexpr lets device code use it.
const char* kArray = R"KB(#pragma once
#include "__kb/config.h"
namespace std {
template <class T, size_t N> struct array {
  typedef T value_type;
  typedef size_t size_type;
  typedef ptrdiff_t difference_type;
  typedef T& reference;
  typedef const T& const_reference;
  typedef T* pointer;
  typedef const T* const_pointer;
  typedef T* iterator;
  typedef const T* const_iterator;
  T _M_elems[N ? N : 1];
  __KB_HD constexpr reference operator[](size_type i) noexcept { return _M_elems[i]; }
  __KB_HD constexpr const_reference operator[](size_type i) const noexcept { return _M_elems[i]; }
  __KB_HD constexpr reference front() noexcept { return _M_elems[0]; }
  __KB_HD constexpr const_reference front() const noexcept { return _M_elems[0]; }
  __KB_HD constexpr reference back() noexcept { return _M_elems[N - 1]; }
  __KB_HD constexpr const_reference back() const noexcept { return _M_elems[N - 1]; }
  __KB_HD constexpr pointer data() noexcept { return _M_elems; }
  __KB_HD constexpr const_pointer data() const noexcept { return _M_elems; }
  __KB_HD constexpr iterator begin() noexcept { return _M_elems; }
  __KB_HD constexpr const_iterator begin() const noexcept { return _M_elems; }
  __KB_HD constexpr iterator end() noexcept { return _M_elems + N; }
  __KB_HD constexpr const_iterator end() const noexcept { return _M_elems + N; }
  __KB_HD constexpr const_iterator cbegin() const noexcept { return _M_elems; }
  __KB_HD constexpr const_iterator cend() const noexcept { return _M_elems + N; }
  __KB_HD constexpr size_type size() const noexcept { return N; }
  __KB_HD constexpr size_type max_size() const noexcept { return N; }
  __KB_HD constexpr bool empty() const noexcept { return N == 0; }
#if __KB_CXX20
  __KB_HD constexpr void fill(const T& v) { for (size_t i = 0; i < N; ++i) _M_elems[i] = v; }
#endif
};
#if __KB_CXX17
template <class T, class... U> array(T, U...) -> array<T, 1 + sizeof...(U)>;
#endif
/* variadic, as libcu++ declares them under NVRTC for structured bindings */
template <class... T> struct tuple_size;
template <size_t I, class... T> struct tuple_element;
template <class T, size_t N> struct tuple_size<array<T, N>> { static constexpr size_t value = N; };
template <size_t I, class T, size_t N> struct tuple_element<I, array<T, N>> { typedef T type; };
template <size_t I, class T, size_t N> __KB_HD constexpr T& get(array<T, N>& a) noexcept { return a._M_elems[I]; }
template <size_t I, class T, size_t N> __KB_HD constexpr const T& get(const array<T, N>& a) noexcept { return a._M_elems[I]; }
template <size_t I, class T, size_t N> __KB_HD constexpr T&& get(array<T, N>&& a) noexcept { return static_cast<T&&>(a._M_elems[I]); }
#if __KB_CXX20
template <class T, size_t N> __KB_HD constexpr bool operator==(const array<T, N>& a, const array<T, N>& b) {
  for (size_t i = 0; i < N; ++i) if (!(a[i] == b[i])) return false;
  return true;
}
#endif
}
)KB";

// CUB's umbrella header includes the device-wide algorithms, whose host
// dispatch code NVRTC refuses ("a function explicitly marked as a __host__
// function is not allowed in JIT mode"). Device code can only use the block,
// warp, thread and iterator parts; this is that list.
const char* kCubUmbrella = R"KB(#pragma once
#include <cub/config.cuh>
#include <cub/block/block_adjacent_difference.cuh>
#include <cub/block/block_discontinuity.cuh>
#include <cub/block/block_exchange.cuh>
#include <cub/block/block_histogram.cuh>
#include <cub/block/block_load.cuh>
#include <cub/block/block_merge_sort.cuh>
#include <cub/block/block_radix_rank.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>
#include <cub/grid/grid_even_share.cuh>
#include <cub/grid/grid_mapping.cuh>
#include <cub/grid/grid_queue.cuh>
#include <cub/thread/thread_load.cuh>
#include <cub/thread/thread_operators.cuh>
#include <cub/thread/thread_reduce.cuh>
#include <cub/thread/thread_scan.cuh>
#include <cub/thread/thread_store.cuh>
#include <cub/warp/warp_exchange.cuh>
#include <cub/warp/warp_load.cuh>
#include <cub/warp/warp_merge_sort.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <cub/warp/warp_scan.cuh>
#include <cub/warp/warp_store.cuh>
#include <cub/iterator/arg_index_input_iterator.cuh>
#include <cub/iterator/cache_modified_input_iterator.cuh>
#include <cub/iterator/cache_modified_output_iterator.cuh>
#include <cub/util_ptx.cuh>
#include <cub/util_type.cuh>
#include <cub/util_device.cuh>
/* nvcc's image of a source that includes <cub/cub.cuh> holds this kernel
   (cub::PtxVersion instantiates it); NVRTC's should list the same entries. */
template __global__ void cub::detail::EmptyKernel<void>();
)KB";

const char* kEmpty = "/* kbench: host-only header; empty in the device compilation (host code is removed) */\n";

// Headers only host code uses. Device code that needs something from one of
// them fails under NVRTC and is compiled by nvcc instead (same verdict).
const char* const kHostOnly[] = {
    "vector", "string", "string_view", "iostream", "istream", "ostream", "fstream", "sstream",
    "iomanip", "ios", "iosfwd", "streambuf", "memory", "map", "unordered_map", "set",
    "unordered_set", "list", "forward_list", "deque", "queue", "stack", "tuple",
    "bitset", "optional", "variant", "any", "chrono", "thread", "mutex", "shared_mutex",
    "condition_variable", "future", "atomic", "stdexcept", "exception", "system_error",
    "random", "iterator", "complex", "valarray", "regex", "locale", "codecvt", "filesystem",
    "typeinfo", "typeindex", "new", "memory_resource", "scoped_allocator", "execution", "span",
    "ranges", "bit", "numbers", "format", "source_location", "ratio", "initializer_list",
    "ctime", "time.h", "cerrno", "errno.h", "csignal", "signal.h", "cctype", "ctype.h",
    "cwchar", "wchar.h", "cstdarg", "stdarg.h", "clocale", "locale.h", "csetjmp", "setjmp.h",
    "cfenv", "fenv.h", "cuchar", "uchar.h", "cstdbool", "stdbool.h", "unistd.h", "sys/time.h",
    "sys/types.h", "sys/stat.h", "fcntl.h", "dlfcn.h", "pthread.h", "omp.h",
    "cuda.h", "cuda_profiler_api.h", "cudaProfiler.h", "cublas_v2.h", "cublas.h", "cublasLt.h",
    "cudnn.h", "cufft.h", "cusparse.h", "cusolverDn.h", "nvtx3/nvToolsExt.h",
    "nvToolsExt.h", "nvrtc.h", "helper_cuda.h",
};

std::vector<VirtualHeader> build() {
    std::vector<VirtualHeader> h = {
        {"__kb/config.h", kConfig},
        {"__kb/type_traits.h", kTypeTraits},
        {"__kb/limits.h", kLimits},
        {"__kb/minmax.h", kMinMax},
        {"__kb/pair.h", kPair},
        {"__kb/math.h", kMath},
        {"__kb/stdint.h", kStdint},
        {"__kb/cstdint.h", kCstdint},
        {"__kb/inttypes.h", kInttypes},
        {"__kb/math_macros.h", kMathMacros},
        {"__kb/math_global.h", kMathGlobal},
        {"math.h", kCmath},
        {"cmath", kCmath},
        {"float.h", kCfloat},
        {"cfloat", kCfloat},
        {"stdint.h", kStdint},
        {"cstdint", kCstdint},
        {"inttypes.h", kInttypes},
        {"cinttypes", kCinttypes},
        {"limits.h", kClimits},
        {"climits", kClimits},
        {"limits", kLimitsStd},
        {"stddef.h", kStddefH},
        {"cstddef", kCstddef},
        {"stdio.h", kStdioH},
        {"cstdio", kCstdio},
        {"string.h", kStringH},
        {"cstring", kCstring},
        {"stdlib.h", kCstdlib},
        {"cstdlib", kCstdlib},
        {"assert.h", kCassert},
        {"cassert", kCassert},
        {"type_traits", kTypeTraitsStd},
        {"utility", kUtilityStd},
        {"algorithm", kAlgorithm},
        {"functional", kFunctional},
        {"numeric", kNumeric},
        {"array", kArray},
        {"cub/cub.cuh", kCubUmbrella},
    };
    for (const char* name : kHostOnly) h.push_back({name, kEmpty});
    return h;
}

}  // namespace

const std::vector<VirtualHeader>& device_headers() {
    static const std::vector<VirtualHeader> headers = build();
    return headers;
}

const char* prelude_header_name() { return "__kb/prelude.h"; }

std::string prelude_for(const std::unordered_set<std::string>& ids, const std::vector<std::string>& includes) {
    auto any = [&](std::initializer_list<const char*> names) {
        for (const char* n : names)
            if (ids.count(n)) return true;
        return false;
    };
    std::string p =
        "#pragma once\n"
        "/* kbench prelude: stands in for nvcc's implicit #include \"cuda_runtime.h\" and the\n"
        "   host headers it brings (see docs/compilation.md). Parts the source never names\n"
        "   are left out to keep NVRTC fast. */\n"
        "#include \"__kb/config.h\"\n";
    // Headers that bring libcu++ (or define the 64-bit types as long long
    // themselves under NVRTC). The prelude comes first, so it must decide.
    bool cccl = false;
    for (const std::string& inc : includes) {
        for (const char* pre : {"cub/", "cuda/", "thrust/", "nv/", "cooperative_groups", "cuda_pipeline",
                                "cuda_awbarrier", "curand", "cuda_barrier"})
            if (inc.compare(0, std::strlen(pre), pre) == 0) cccl = true;
    }
    if (cccl) p = "#define __KB_CCCL 1\n#define __KB_LL64 1\n" + p;
    p += "#include \"__kb/math_macros.h\"\n";
    if (any({"fpclassify", "isnormal", "isgreater", "isgreaterequal", "isless", "islessequal", "islessgreater",
             "isunordered", "float_t", "double_t"}))
        p += "#include \"__kb/math_global.h\"\n";
    if (!ids.count("std")) return p;
    // <type_traits>: any of its names
    bool traits = false;
    for (const std::string& id : ids) {
        if (id.compare(0, 3, "is_") == 0 || id.compare(0, 4, "has_") == 0 || id.compare(0, 7, "remove_") == 0 ||
            id.compare(0, 4, "add_") == 0) {
            traits = true;
            break;
        }
    }
    traits = traits || any({"enable_if", "enable_if_t", "conditional", "conditional_t", "decay", "decay_t",
                            "common_type", "common_type_t", "make_signed", "make_signed_t", "make_unsigned",
                            "make_unsigned_t", "underlying_type", "underlying_type_t", "integral_constant",
                            "true_type", "false_type", "bool_constant", "void_t", "declval", "alignment_of",
                            "alignment_of_v", "rank", "rank_v", "extent", "extent_v", "aligned_storage",
                            "aligned_storage_t", "conjunction", "conjunction_v", "disjunction", "disjunction_v",
                            "negation", "negation_v", "integer_sequence", "index_sequence", "make_index_sequence",
                            "make_integer_sequence", "index_sequence_for", "type_identity", "type_identity_t"});
    if (traits) p += "#include \"__kb/type_traits.h\"\n";
    if (any({"numeric_limits", "float_round_style", "float_denorm_style"})) p += "#include \"__kb/limits.h\"\n";
    if (any({"min", "max", "swap"})) p += "#include \"__kb/minmax.h\"\n";
    if (any({"pair", "make_pair", "tuple_size", "tuple_element", "tuple_element_t", "get", "piecewise_construct_t"}))
        p += "#include \"__kb/pair.h\"\n";
    static const char* const math_names[] = {
        "abs", "labs", "llabs", "acos", "acosh", "acoshf", "asin", "asinh", "asinhf", "atan", "atan2", "atanh",
        "atanhf", "cbrt", "cbrtf", "ceil", "copysign", "copysignf", "cos", "cosh", "erf", "erfc", "erfcf", "erff",
        "exp", "exp2", "exp2f", "expm1", "expm1f", "fabs", "fdim", "fdimf", "floor", "fma", "fmaf", "fmax", "fmaxf",
        "fmin", "fminf", "fmod", "frexp", "hypot", "hypotf", "ilogb", "ilogbf", "ldexp", "lgamma", "lgammaf",
        "llrint", "llrintf", "llround", "llroundf", "log", "log10", "log1p", "log1pf", "log2", "log2f", "logb",
        "logbf", "lrint", "lrintf", "lround", "lroundf", "modf", "nan", "nanf", "nearbyint", "nearbyintf",
        "nextafter", "nextafterf", "pow", "remainder", "remainderf", "remquo", "remquof", "rint", "rintf", "round",
        "roundf", "scalbln", "scalblnf", "scalbn", "scalbnf", "sin", "sinh", "sqrt", "tan", "tanh", "tgamma",
        "tgammaf", "trunc", "truncf", "isfinite", "isinf", "isnan", "signbit", "fpclassify", "isnormal",
        "isgreater", "isgreaterequal", "isless", "islessequal", "islessgreater", "isunordered", "float_t",
        "double_t"};
    for (const char* n : math_names)
        if (ids.count(n)) {
            p += "#include \"__kb/math.h\"\n";
            break;
        }
    return p;
}

bool is_host_only_header(const std::string& name) {
    for (const char* h : kHostOnly)
        if (name == h) return true;
    return false;
}

}  // namespace kb
