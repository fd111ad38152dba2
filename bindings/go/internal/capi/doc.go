// Package capi is the raw binding of include/kbench.h, call for call. The go
// tool generates it from capi.swig with `swig -go -cgo -intgosize 64` while
// building this package; package kbench wraps it in idiomatic Go.
package capi

// The link flag lives here, not in capi.swig: the go tool collects cgo flags
// from the package's .go files before it runs swig.

// #cgo LDFLAGS: -lkbench
import "C"
