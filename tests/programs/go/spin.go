// spin.go: goroutines, a channel, and a loop long enough for the Go
// runtime to preempt it (SIGURG); prints one line that does not depend on
// the schedule.  Built by tests/runtimes_test.py (Debian's golang-go).
package main

import (
	"fmt"
	"os"
	"strconv"
)

func spin(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i % 7
	}
	return s
}

func main() {
	ch := make(chan int)
	n, _ := strconv.Atoi(os.Args[1])
	for w := 0; w < 4; w++ {
		go func(w int) { ch <- spin(n + w) }(w)
	}
	t := 0
	for w := 0; w < 4; w++ {
		t += <-ch
	}
	fmt.Println("total", t)
}
