// Fixture: a Go program as Debian's golang-go builds it, its DWARF
// compressed (SHF_COMPRESSED, unaligned) and its frames in a compressed
// .debug_frame (Go writes no .eh_frame).
package main

import "fmt"

//go:noinline
func add(a, b int) int {
	return a + b
}

func main() {
	x := add(1, 2)
	fmt.Println("x =", x)
}
