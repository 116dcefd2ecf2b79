package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/skillpack/skillpack/config"
	"github.com/skillpack/skillpack/internal/human"
	"github.com/skillpack/skillpack/internal/version"
	"github.com/skillpack/skillpack/layout"
	"github.com/skillpack/skillpack/lint"
	"github.com/skillpack/skillpack/sign"
	"github.com/skillpack/skillpack/skill"
)

type doctorOptions struct {
	Config string // skillpack.yaml; "" = found upward, as lint and build find it
	Out    string // the bundle folder build writes by default
	JSON   bool
}

func newDoctorCmd(ios *IO, runF func(*doctorOptions) error) *cobra.Command {
	opts := &doctorOptions{}
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Say what skillpack is using here: version, signing helper, config, skills, dist",
		Long: `Doctor prints what skillpack would use in this folder: its version; the
signing helper skillpack-sign and whether its version is skillpack's; the
skillpack.yaml that applies and its profile; how many skills and plugins
build would find here; and what the output folder holds.

It exits 1 when skillpack-sign is of another version than skillpack
(signing would fail); without one it exits 0, since only signing needs
it. --json prints the same as a JSON document (schema/doctor.schema.json).` + "\n\n" + docs("install.md"),
		Example: `  skillpack doctor
  skillpack doctor --json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runDoctor(cmd.Context(), ios, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Config, "config", "", "`path` of skillpack.yaml (default: found upward from the working directory)")
	f.StringVarP(&opts.Out, "out", "o", "dist", "the output `folder` to describe")
	f.BoolVar(&opts.JSON, "json", false, "print a JSON document on stdout, even on failure")
	return cmd
}

// doctorJSON is doctor's report and --json document (schema/doctor.schema.json).
type doctorJSON struct {
	Version string       `json:"version"`
	Sign    doctorSign   `json:"sign"`
	Config  doctorConfig `json:"config"`
	Skills  doctorSkills `json:"skills"`
	Dist    doctorDist   `json:"dist"`
	status
}

type doctorSign struct {
	Path     string `json:"path,omitempty"`
	Version  string `json:"version,omitempty"`
	Protocol int    `json:"protocol,omitempty"`
	OK       bool   `json:"ok"`
	Problem  string `json:"problem,omitempty"`
}

type doctorConfig struct {
	Path    string `json:"path,omitempty"` // absent: none found, the defaults apply
	Profile string `json:"profile"`
	Problem string `json:"problem,omitempty"`
	Foreign string `json:"foreign,omitempty"` // another tool's skillpack.yaml, found and passed over
}

type doctorSkills struct {
	Input   string `json:"input"`
	Count   int    `json:"count"`
	Plugins int    `json:"plugins"`
}

type doctorDist struct {
	Path      string `json:"path"`
	State     string `json:"state"` // absent, bundle or foreign
	Built     string `json:"built,omitempty"`
	Generator string `json:"generator,omitempty"`
	Skills    int    `json:"skills,omitempty"`
	Files     int    `json:"files,omitempty"`
	Problem   string `json:"problem,omitempty"`
}

func runDoctor(ctx context.Context, ios *IO, opts *doctorOptions) error {
	cfgState, cfg, err := doctorConfigState(opts.Config)
	doc := doctorJSON{Version: version.Version(), Sign: doctorSignHelper(ctx), Config: cfgState,
		Skills: doctorSkills{Input: "."}, Dist: doctorDistState(opts.Out)}
	// As build finds them: the same scope, identical copies once.
	sc := lint.Scope{}
	if cfg != nil {
		sc.Config, sc.ConfigDir = cfg.Lint.Ignore, cfg.Lint.Dir()
	}
	if f, derr := sc.Find([]string{doc.Skills.Input}); derr == nil {
		// A plugin that is itself a skill the scope leaves out (a client's
		// install copy) is left out with it, as build leaves it out.
		kept := map[string]bool{}
		for _, s := range f.Skills {
			abs, _ := filepath.Abs(s.Dir)
			kept[abs] = true
		}
		for _, p := range f.Plugins {
			abs, _ := filepath.Abs(p.Dir)
			if _, err := os.Stat(filepath.Join(p.Dir, skill.FileName)); err != nil || kept[abs] {
				doc.Skills.Plugins++
			}
		}
		if found, _, derr := sc.Dedupe(ctx, f.Skills, 0); derr == nil {
			doc.Skills.Count = len(found)
		}
	}
	// A helper of another version fails every --sign; none is what most
	// installs have, and only --sign needs one.
	if err == nil && !doc.Sign.OK && doc.Sign.Path != "" {
		err = &exitError{code: ExitFindings, err: fmt.Errorf("signing is not ready: %s is not skillpack's version", sign.Helper)}
	}
	doc.status = newStatus(err, "")
	if opts.JSON {
		return jsonResult(ios.Out, true, doc, err)
	}
	w := ios.Out
	fmt.Fprintf(w, "skillpack:      %s\n", doc.Version)
	if doc.Sign.OK {
		fmt.Fprintf(w, "skillpack-sign: %s %s (protocol %d), skillpack's version\n", doc.Sign.Path, doc.Sign.Version, doc.Sign.Protocol)
	} else {
		fmt.Fprintf(w, "skillpack-sign: %s\n", doc.Sign.Problem)
	}
	switch {
	case doc.Config.Problem != "":
		fmt.Fprintf(w, "config:         %s\n", doc.Config.Problem)
	case doc.Config.Foreign != "":
		fmt.Fprintf(w, "config:         %s is another tool's file; the defaults (profile %s)\n", doc.Config.Foreign, doc.Config.Profile)
	case doc.Config.Path != "":
		fmt.Fprintf(w, "config:         %s (profile %s)\n", doc.Config.Path, doc.Config.Profile)
	default:
		fmt.Fprintf(w, "config:         no %s here or above; the defaults (profile %s)\n", config.File, doc.Config.Profile)
	}
	found := human.Plural(doc.Skills.Count, "skill")
	if n := doc.Skills.Plugins; n > 0 {
		found += " and " + human.Plural(n, "plugin")
	}
	fmt.Fprintf(w, "skills:         %s under %s\n", found, doc.Skills.Input)
	d := doc.Dist
	switch d.State {
	case "absent":
		fmt.Fprintf(w, "output:         %s does not exist yet; skillpack build writes it\n", d.Path)
	case "bundle":
		fmt.Fprintf(w, "output:         %s is a bundle built at %s (%s, %s) by %s\n", d.Path, d.Built, human.Plural(d.Skills, "skill"), human.Plural(d.Files, "file"), d.Generator)
	default:
		fmt.Fprintf(w, "output:         %s\n", d.Problem)
	}
	return err
}

// doctorSignHelper finds skillpack-sign as signing does and asks its
// version, which must be skillpack's: the helper protocol changes with it.
func doctorSignHelper(ctx context.Context) doctorSign {
	p, err := sign.FindHelper()
	if err != nil {
		return doctorSign{Problem: fmt.Sprintf("%s is neither beside skillpack nor on PATH; only --sign needs it: install it with %s, or take it from the release archive", sign.Helper, sign.Install())}
	}
	s := doctorSign{Path: p}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, p, "version").Output()
	// "skillpack-sign VERSION (protocol N)"
	rest, ok := strings.CutPrefix(strings.TrimSpace(string(out)), sign.Helper+" ")
	v, proto, ok2 := strings.Cut(rest, " (protocol ")
	n, nerr := strconv.Atoi(strings.TrimSuffix(proto, ")"))
	if err != nil || !ok || !ok2 || nerr != nil {
		why := strconv.Quote(string(out))
		if err != nil {
			why = err.Error()
		}
		s.Problem = fmt.Sprintf("%s does not say its version (%s version: %s); reinstall it with %s", p, sign.Helper, why, sign.Install())
		return s
	}
	s.Version, s.Protocol = v, n
	switch {
	case n != sign.Protocol:
		s.Problem = fmt.Sprintf("%s is %s and speaks helper protocol %d, skillpack %s speaks %d: install the %s of skillpack's version", p, v, n, version.Version(), sign.Protocol, sign.Helper)
	case v != version.Version():
		s.Problem = fmt.Sprintf("%s is %s, skillpack is %s: install the %s of skillpack's version", p, v, version.Version(), sign.Helper)
	default:
		s.OK = true
	}
	return s
}

// configPath is the skillpack.yaml a command reads: the one --config
// names, else the first found upward from the working directory, else ""
// for the defaults.
func configPath(flag string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	return config.Find(".")
}

// doctorConfigState reads the config as lint and build read it, but not
// the baseline it names, which doctor does not describe.
func doctorConfigState(flag string) (doctorConfig, *config.Config, error) {
	cfg, err := (&LintOptions{Config: flag, writingBaseline: true}).load()
	if err != nil {
		path, _ := configPath(flag) // the file that did not load, if any
		return doctorConfig{Path: path, Profile: config.Default().Lint.Profile.Name, Problem: err.Error()}, nil, err
	}
	d := doctorConfig{Path: cfg.Path, Profile: cfg.Lint.Profile.Name}
	if p, _ := configPath(flag); cfg.Path == "" && p != "" {
		d.Foreign = p // load passed over another tool's file
	}
	return d, cfg, nil
}

// doctorDistState says what the output folder holds: nothing yet (no
// folder, or an empty one), a bundle skillpack built (by its build
// record), or something else.
func doctorDistState(dir string) doctorDist {
	d := doctorDist{Path: dir}
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		d.State = "absent"
		return d
	case err != nil:
		d.State, d.Problem = "foreign", fmt.Sprintf("cannot read %s: %v", dir, err)
		return d
	case !info.IsDir():
		d.State, d.Problem = "foreign", fmt.Sprintf("%s is a file, not a folder; build needs another -o", dir)
		return d
	}
	if ents, err := os.ReadDir(dir); err == nil && len(ents) == 0 {
		d.State = "absent" // the build writes into an empty folder, as into none
		return d
	}
	recPath := filepath.Join(dir, filepath.FromSlash(layout.BuildRecord))
	f, err := os.Open(recPath)
	if err != nil {
		d.State, d.Problem = "foreign", fmt.Sprintf("%s holds no build record (%s): skillpack did not write it, and build will not replace it without --force", dir, layout.BuildRecord)
		return d
	}
	defer f.Close()
	head, err := layout.ReadRecord(f, func(layout.RecordSkill) error { d.Skills++; return nil }, func(string) error { d.Files++; return nil })
	if err != nil {
		d.State, d.Problem = "foreign", fmt.Sprintf("%s: %v; build it again (skillpack build -o %s)", recPath, err, dir)
		return d
	}
	d.State, d.Generator = "bundle", head.Generator
	if info, err := f.Stat(); err == nil {
		d.Built = info.ModTime().UTC().Format(time.RFC3339)
	}
	return d
}
