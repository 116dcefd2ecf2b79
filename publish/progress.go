package publish

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/skillpack/skillpack/internal/human"
)

// progress is the line a Runner redraws on a terminal: the stage, how many
// objects are done of how many, how many were sent and their bytes. It is
// redrawn at most every tenth of a second, so that a run of 200,000
// present objects does not spend its time on the terminal.
type progress struct {
	w          io.Writer // nil: no line
	total      int
	done, sent int
	bytes      int64
	stage      Stage
	last       time.Time
	drawn      bool
}

// add counts a result, under the Runner's lock.
func (p *progress) add(r Result) {
	p.done++
	p.stage = r.Object.Stage
	if r.State == Uploaded {
		p.sent++
		p.bytes += r.Object.Size
	}
	if p.w == nil || time.Since(p.last) < 100*time.Millisecond && p.done < p.total {
		return
	}
	p.last = time.Now()
	p.drawn = true
	fmt.Fprintf(p.w, "\r\x1b[Kpublish: %s, %d of %d objects, %d sent (%s)", p.stage, p.done, p.total, p.sent, human.Bytes(p.bytes))
}

// finish clears the line, so that what is printed next starts clean.
func (p *progress) finish(mu *sync.Mutex) {
	mu.Lock()
	defer mu.Unlock()
	if p.w != nil && p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}
