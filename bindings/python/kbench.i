/*
 * The raw Python binding of include/kbench.h: module kbench.capi (with its
 * extension kbench._capi). The pythonic classes in kbench/ are built on it;
 * use them unless you need the C API call for call.
 *
 * Typemaps here make the C conventions Python ones:
 *  - a kb_status other than KB_OK raises kbench.KbenchError, whose .status is
 *    the kb_status value and .detail the kb_last_error() text. The detail is
 *    read inside the wrapper, right after the call and on the same thread,
 *    because kb_last_error() is thread-local and the next kbench call on this
 *    thread would overwrite it;
 *  - out-parameters (new handles, numbers, strings, the kernel image) become
 *    the return value, so kb_load_task(path) returns the kb_task*;
 *  - the calls that compile, run, time or start a worker release the GIL, so
 *    Python threads can compile ahead of the GPU as docs/c-api.md intends.
 * Handles come back as plain SWIG pointers that nothing frees automatically:
 * the owner is the pythonic wrapper (kbench.Task, ...), which calls the
 * matching kb_*_destroy.
 */
%module(package="kbench") capi

%begin %{
/* Sizes of Python buffers are Py_ssize_t, not int (PEP 353). */
#define PY_SSIZE_T_CLEAN
%}

%{
#include "kbench.h"

static PyObject* kb_py_error_type = NULL;

/* Raises KbenchError(status, detail). The detail comes from kb_last_error()
 * and so must be read before any other kbench call on this thread. */
static void kb_py_raise(kb_status status) {
    const char* detail = kb_last_error();
    PyObject* py_detail = PyUnicode_DecodeUTF8(detail, (Py_ssize_t)strlen(detail), "replace");
    PyObject* message = NULL;
    PyObject* exc = NULL;
    if (!py_detail) return;
    message = *detail ? PyUnicode_FromFormat("%s: %U", kb_status_string(status), py_detail)
                      : PyUnicode_FromString(kb_status_string(status));
    if (message) exc = PyObject_CallFunctionObjArgs(kb_py_error_type, message, NULL);
    if (exc) {
        PyObject* py_status = PyLong_FromLong((long)status);
        if (py_status && PyObject_SetAttrString(exc, "status", py_status) == 0 &&
            PyObject_SetAttrString(exc, "detail", py_detail) == 0)
            PyErr_SetObject(kb_py_error_type, exc);
        Py_XDECREF(py_status);
    }
    Py_XDECREF(exc);
    Py_XDECREF(message);
    Py_DECREF(py_detail);
}

/* Replaces the None a successful kb_status left in $result by an
 * out-parameter's value. Every function has at most one such value. */
static PyObject* kb_py_set_output(PyObject* result, PyObject* value) {
    Py_XDECREF(result);
    return value;
}
%}

%init %{
    kb_py_error_type = PyErr_NewExceptionWithDoc(
        "kbench.KbenchError",
        "A kbench call failed. .status is the kb_status value, .detail the library's "
        "explanation (a task's JSON path, a compiler log, a CUDA error name).",
        NULL, NULL);
    if (kb_py_error_type) PyDict_SetItemString(d, "KbenchError", kb_py_error_type);
%}

/* --- statuses ----------------------------------------------------------- */

%typemap(out) kb_status {
    if ($1 != KB_OK) {
        kb_py_raise($1);
        SWIG_fail;
    }
    $result = Py_None;
    Py_INCREF(Py_None);
}

/* --- out-parameters become return values ---------------------------------- */

%define KB_PY_OUT_HANDLE(TYPE)
%typemap(in, numinputs=0) TYPE** out (TYPE* handle = NULL) { $1 = ($1_ltype)&handle; }
%typemap(argout) TYPE** out {
    $result = kb_py_set_output($result, SWIG_NewPointerObj(SWIG_as_voidptr(handle$argnum), $descriptor(TYPE*), 0));
}
%enddef
KB_PY_OUT_HANDLE(kb_context)
KB_PY_OUT_HANDLE(kb_task)
KB_PY_OUT_HANDLE(kb_kernel)
KB_PY_OUT_HANDLE(kb_result)
KB_PY_OUT_HANDLE(kb_batch)
KB_PY_OUT_HANDLE(kb_batch_job)
KB_PY_OUT_HANDLE(kb_launch_args)

/* kb_batch_submit's job id and kb_batch_cancel_all's count. */
%typemap(in, numinputs=0) uint64_t* id_out (uint64_t value = 0) { $1 = &value; }
%typemap(argout) uint64_t* id_out { $result = kb_py_set_output($result, PyLong_FromUnsignedLongLong(value$argnum)); }
%typemap(in, numinputs=0) size_t* count (size_t value = 0) { $1 = &value; }
%typemap(argout) size_t* count { $result = kb_py_set_output($result, PyLong_FromSize_t(value$argnum)); }

%typemap(in, numinputs=0) int* out (int value = 0) { $1 = ($1_ltype)&value; }
%typemap(argout) int* out { $result = kb_py_set_output($result, PyLong_FromLong(value$argnum)); }

%typemap(in, numinputs=0) double* out (double value = 0) { $1 = ($1_ltype)&value; }
%typemap(argout) double* out { $result = kb_py_set_output($result, PyFloat_FromDouble(value$argnum)); }

%typemap(in, numinputs=0) const char** out (const char* value = NULL) { $1 = ($1_ltype)&value; }
%typemap(argout) const char** out { $result = kb_py_set_output($result, SWIG_FromCharPtr(value$argnum)); }

/* kb_kernel_image: the image as bytes (a copy; the kernel keeps its own). */
%typemap(in, numinputs=0) (const void** data, size_t* size) (const void* data = NULL, size_t size = 0) {
    $1 = ($1_ltype)&data;
    $2 = ($2_ltype)&size;
}
%typemap(argout) (const void** data, size_t* size) {
    $result = kb_py_set_output($result, PyBytes_FromStringAndSize((const char*)data$argnum, (Py_ssize_t)size$argnum));
}

/* kb_candidate.set_code: bytes (a cubin) or str (source, sent as UTF-8). */
%{
/* The bytes of a `code` argument: str as UTF-8, or any buffer (bytes,
 * bytearray, memoryview, a NumPy array). The wheel is built for Python's
 * limited API of 3.10 (one wheel for 3.10+), which lacks the buffer protocol
 * (3.11 added it): there, str, bytes and bytearray. */
#if defined(Py_LIMITED_API) && Py_LIMITED_API + 0 < 0x030B0000
#define KB_PY_HAVE_BUFFER 0
#else
#define KB_PY_HAVE_BUFFER 1
#endif
typedef struct {
#if KB_PY_HAVE_BUFFER
    Py_buffer view;
#endif
    int have_view;
} kb_py_code;

static int kb_py_code_get(PyObject* obj, kb_py_code* c, char** data, size_t* size) {
    Py_ssize_t n = 0;
    c->have_view = 0;
    if (PyUnicode_Check(obj)) {
        *data = (char*)PyUnicode_AsUTF8AndSize(obj, &n);
        *size = (size_t)n;
        return *data ? 0 : -1;
    }
#if KB_PY_HAVE_BUFFER
    if (PyObject_GetBuffer(obj, &c->view, PyBUF_SIMPLE) != 0) return -1;
    c->have_view = 1;
    *data = (char*)c->view.buf;
    *size = (size_t)c->view.len;
    return 0;
#else
    if (PyBytes_Check(obj)) {
        if (PyBytes_AsStringAndSize(obj, data, &n) != 0) return -1;
        *size = (size_t)n;
        return 0;
    }
    if (PyByteArray_Check(obj)) {
        *data = PyByteArray_AsString(obj);
        *size = (size_t)PyByteArray_Size(obj);
        return 0;
    }
    PyErr_SetString(PyExc_TypeError, "code must be str, bytes or bytearray");
    return -1;
#endif
}

static kb_py_code kb_py_code_none(void) {
    kb_py_code c;
    memset(&c, 0, sizeof c);
    return c;
}

static void kb_py_code_release(kb_py_code* c) {
#if KB_PY_HAVE_BUFFER
    if (c->have_view) PyBuffer_Release(&c->view);
#endif
    c->have_view = 0;
}
%}
%typemap(in) (const char* code_bytes, size_t code_len) (kb_py_code code = kb_py_code_none()) {
    if (kb_py_code_get($input, &code, &$1, &$2) != 0) SWIG_fail;
}
%typemap(freearg) (const char* code_bytes, size_t code_len) {
    kb_py_code_release(&code$argnum);
}

/* --- calls that may take long run without the GIL ------------------------- */

%define KB_PY_RELEASE_GIL(FUNCTION)
%exception FUNCTION {
    Py_BEGIN_ALLOW_THREADS
    $action
    Py_END_ALLOW_THREADS
}
%enddef
KB_PY_RELEASE_GIL(kb_device_count)
KB_PY_RELEASE_GIL(kb_context_create)
KB_PY_RELEASE_GIL(kb_context_destroy)  /* stops the worker process */
KB_PY_RELEASE_GIL(kb_load_task)
KB_PY_RELEASE_GIL(kb_compile)
KB_PY_RELEASE_GIL(kb_compile_task_program)
KB_PY_RELEASE_GIL(kb_run_reference)
KB_PY_RELEASE_GIL(kb_compare)
KB_PY_RELEASE_GIL(kb_time)
KB_PY_RELEASE_GIL(kb_score)
KB_PY_RELEASE_GIL(kb_batch_submit)    /* waits for room in a full batch */
KB_PY_RELEASE_GIL(kb_batch_next)      /* waits for a job to complete */
KB_PY_RELEASE_GIL(kb_batch_destroy)   /* waits for the jobs running now */
KB_PY_RELEASE_GIL(kb_launch)          /* may load a module or wait to free old scratch */

%include "../swig/kbench_common.i"

%pythoncode %{
KbenchError = _capi.KbenchError
%}
