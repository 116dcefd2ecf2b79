package catalog

import "io"

// List is Skills held in a slice, for tests.
type List []Skill

func (l List) Len() int                   { return len(l) }
func (l List) Skill(i int) (Skill, error) { return l[i], nil }

// Render and Pages are New, then the method: the front page or the pages
// of one Catalog each.
func Render(w io.Writer, skills Skills, o Options) error {
	c, err := New(skills, o)
	if err != nil {
		return err
	}
	return c.Render(w)
}

func Pages(skills Skills, o Options, write func(i int, page []byte) error) error {
	c, err := New(skills, o)
	if err != nil {
		return err
	}
	return c.Pages(write)
}
