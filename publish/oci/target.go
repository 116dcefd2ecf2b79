package oci

import (
	"cmp"
	"fmt"
	"strings"

	"oras.land/oras-go/v2/registry"
)

// Scheme is the prefix of an OCI target: oci://host[:port]/repo[:tag].
const Scheme = "oci://"

// DefaultTag is the collection's tag when the target names none: the tag
// `oras pull`, `docker pull` and the skills-OCI clients take when given
// none, so that a reader who knows only the repository gets the newest
// release.
const DefaultTag = "latest"

// Target is a parsed oci:// target.
type Target struct {
	Registry   string // host[:port]
	Repository string // every artifact of the bundle is pushed here
	Tag        string // the collection's tag (DefaultTag if none was given)
}

func (t Target) String() string { return Scheme + t.Registry + "/" + t.Repository + ":" + t.Tag }

// Ref is the reference of something in the target's repository: a tag or
// a digest (which has a colon, and a tag cannot).
func (t Target) Ref(reference string) string {
	sep := ":"
	if strings.Contains(reference, ":") {
		sep = "@"
	}
	return t.Registry + "/" + t.Repository + sep + reference
}

// ParseTarget reads oci://host[:port]/repo[:tag]. The errors name the
// target and say what form it must have.
func ParseTarget(s string) (Target, error) {
	t, err := parse(s, "target", "[:tag]")
	switch {
	case err != nil:
		return t, err
	case strings.Contains(t.Tag, ":"):
		return Target{}, fmt.Errorf("OCI target %q names a digest: a publish pushes a new index and tags it, so give a tag (%shost/repository:tag) or none (%s)", s, Scheme, DefaultTag)
	case strings.HasPrefix(t.Tag, "sha256-"):
		return Target{}, fmt.Errorf("OCI target %q: tags that start with sha256- hold a registry's list of referrers (signatures); choose another tag", s)
	}
	return t, nil
}

// parse reads oci://host[:port]/repo[:tag|@digest], the tag DefaultTag
// when none is given; what ("target", "source") and its reference's form
// are for the messages.
func parse(s, what, form string) (Target, error) {
	rest, ok := strings.CutPrefix(s, Scheme)
	if !ok {
		return Target{}, fmt.Errorf("%q is not an OCI %s: write %shost[:port]/repository%s (it must start with %s)", s, what, Scheme, form, Scheme)
	}
	if !strings.Contains(rest, "/") {
		return Target{}, fmt.Errorf("%q is not an OCI %s: it names no repository; write %shost[:port]/repository%s, e.g. oci://ghcr.io/OWNER/skills", s, what, Scheme, form)
	}
	ref, err := registry.ParseReference(rest)
	if err != nil {
		return Target{}, fmt.Errorf("OCI %s %q is not a valid reference: %v (a repository is lowercase letters, digits and . _ - separators; a tag is up to 128 of letters, digits, . _ -)", what, s, err)
	}
	return Target{Registry: ref.Registry, Repository: ref.Repository, Tag: cmp.Or(ref.Reference, DefaultTag)}, nil
}

// VersionTag is a skill's version tag in the repository,
// <skill>-<version>: one repository holds the whole bundle. A "+" (semver
// build metadata, which tags cannot hold) becomes "_", as Helm does. ok is
// false when the result is still not a valid tag; the skill is then
// pushed untagged.
func VersionTag(skill, version string) (tag string, ok bool) {
	if version == "" {
		return "", false
	}
	tag = skill + "-" + strings.ReplaceAll(version, "+", "_")
	return tag, registry.Reference{Reference: tag}.ValidateReferenceAsTag() == nil
}
