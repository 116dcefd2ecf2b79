package verify

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/skillpack/skillpack/layout"
)

// Reader reads the files of a bundle, a dist folder or a URL, the way
// verify reads them: a folder through an os.Root (no link leads out of
// it, only regular files), a URL with verify's HTTP client (a timeout per
// request, same-origin redirects only, Options.Header to the URL's origin
// only, no Content-Encoding on archives), and no file past
// Options.MaxSize. build --previous reads the bundle published last with
// it, and verify --previous too.
type Reader struct {
	src source
	o   Options
}

// NewReader reads the bundle at loc: an http or https URL (of the folder
// that holds .well-known/, as verify takes it), or else a folder.
func NewReader(loc string, o Options) (*Reader, error) {
	o = o.withDefaults()
	var src source
	var err error
	if strings.Contains(loc, "://") {
		src, err = newHTTPSource(loc, o)
	} else {
		src, err = newDirSource(loc)
	}
	if err != nil {
		return nil, err
	}
	return &Reader{src: src, o: o}, nil
}

// Open opens the file at a dist path. A file the bundle does not have is
// an error that is an fs.ErrNotExist; any other says what went wrong
// (with a URL, the HTTP status and the URL).
func (r *Reader) Open(ctx context.Context, p string) (io.ReadCloser, error) {
	rc, size, err := r.src.open(ctx, p)
	if err == nil && size > r.o.MaxSize {
		rc.Close()
		err = tooLarge(r.o.MaxSize, size)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return struct {
		io.Reader
		io.Closer
	}{&limitReader{r: rc, limit: r.o.MaxSize}, rc}, nil
}

// read reads a whole file.
func (r *Reader) read(ctx context.Context, p string) ([]byte, error) {
	rc, err := r.Open(ctx, p)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return data, nil
}

// String is the folder or URL read.
func (r *Reader) String() string { return r.src.String() }

// Close lets go of what the reader holds open.
func (r *Reader) Close() error {
	r.src.close()
	return nil
}

// published reads what the bundle published (layout.ReadPublished).
func (r *Reader) published(ctx context.Context) (*layout.Published, error) {
	return layout.ReadPublished(func(p string) ([]byte, error) { return r.read(ctx, p) })
}

// previous compares the bundle with the one published before it
// (Options.Previous), as build --previous does, with layout's rule
// (Published.Compare): a version whose content changed, a version or
// release that went down, a published version or release that is gone
// or changed, are problems; a skill that is gone is a warning.
func (c *checker) previous() {
	po := c.o
	if h, ok := c.src.(*httpSource); !ok || !strings.Contains(c.o.Previous, "://") || !sameOrigin(h.base.String(), c.o.Previous) {
		po.Header = nil // credentials are for the origin they were given with
	}
	prev, err := NewReader(c.o.Previous, po)
	if err != nil {
		c.problem(c.o.Previous, "the previous bundle: %v", err)
		return
	}
	defer prev.Close()
	was, err := prev.published(c.ctx)
	if err != nil {
		c.problem(c.o.Previous, "the previous bundle cannot be compared with: %v", err)
		return
	}
	now, err := (&Reader{src: c.src, o: c.o}).published(c.ctx)
	if err != nil {
		c.problem(layout.V2Index, "cannot be compared with the previous bundle: %v", err)
		return
	}
	c.rep.Previous = &Compared{Source: c.o.Previous, Skills: len(was.Index.Skills)}
	if was.Versions != nil {
		for _, s := range was.Versions.Skills {
			c.rep.Previous.Versions += len(s.Versions)
		}
	}
	for _, ch := range was.Compare(now) {
		path := layout.VersionsIndex
		switch {
		case ch.Skill != "":
			path = layout.SkillDir(ch.Skill)
		case ch.Release != "":
			path = layout.Snapshot(ch.Release)
		}
		if ch.Error {
			c.problem(path, "%s", ch.Message)
		} else {
			c.rep.Warnings = append(c.rep.Warnings, Problem{Path: path, Message: ch.Message})
		}
	}
}

// sameOrigin reports whether two URLs have one origin.
func sameOrigin(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	return err1 == nil && err2 == nil && origin(ua) == origin(ub)
}
