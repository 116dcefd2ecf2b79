package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/skillpack/skillpack/config"
	"github.com/skillpack/skillpack/internal/atomicfile"
	"github.com/skillpack/skillpack/lint"
	"github.com/skillpack/skillpack/skill"
	"github.com/skillpack/skillpack/templates"
)

// workflowPath is where --ci github writes the workflow.
var workflowPath = filepath.Join(".github", "workflows", "skillpack.yml")

type initOptions struct {
	Force   bool
	CI      string
	Profile string
}

func newInitCmd(ios *IO, runF func(*initOptions) error) *cobra.Command {
	opts := &initOptions{}
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Write a commented skillpack.yaml (and a CI workflow) here",
		Long: `Init writes skillpack.yaml in the working directory: the profile, and every
other key as a commented example, with the line that gives editors the
schema. It adds dist/ to .gitignore.

With --ci github it also writes .github/workflows/skillpack.yml, which lints
pull requests with annotations and builds the bundle on pushes to the
branch checked out here (main when init cannot tell).
An existing file is never replaced without --force.` + "\n\n" + docs("ci.md"),
		Example: `  skillpack init
  skillpack init --profile claude --ci github`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runInit(ios, opts)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.Force, "force", false, "replace existing files")
	f.StringVar(&opts.CI, "ci", "", "also write a CI workflow for this `provider`: github")
	f.StringVar(&opts.Profile, "profile", "clients", "the config's rule profile: clients, spec, claude or relaxed")
	return cmd
}

// initFile is one file init writes.
type initFile struct {
	path string
	data []byte
}

func runInit(ios *IO, opts *initOptions) error {
	if _, err := lint.LookupProfile(opts.Profile); err != nil {
		return enumErr("profile", "profile", opts.Profile, profiles())
	}
	if opts.CI != "" && !slices.Contains(ciProviders, opts.CI) {
		return enumErr("ci", "provider", opts.CI, ciProviders)
	}
	// Files written into a skill would be published in its archives.
	if dir := skill.Enclosing("."); dir != "" && !opts.Force {
		abs, _ := filepath.Abs(dir)
		return usageErr("this folder is in the skill %s, whose archives would take in what init writes; "+
			"run init at the root of the repository (or --force, to write here anyway)", filepath.Base(abs))
	}
	files, err := initFiles(opts)
	if err != nil {
		return &exitError{code: ExitInternal, err: err}
	}
	// Every file is checked before any is written. A file there already is
	// kept, unless --force: init --ci github beside a config adds the workflow.
	var kept []string
	if !opts.Force {
		var missing []initFile
		for _, f := range files {
			if _, err := os.Lstat(f.path); err == nil {
				kept = append(kept, f.path)
			} else if errors.Is(err, fs.ErrNotExist) {
				missing = append(missing, f)
			} else {
				return usageErr("%w", err)
			}
		}
		if len(missing) == 0 {
			verb, them := "exists", "it"
			if len(kept) > 1 {
				verb, them = "exist", "them"
			}
			return usageErr("%s already %s; --force replaces %s", strings.Join(kept, " and "), verb, them)
		}
		files = missing
	}
	parent, _ := config.Find("..") // the config that applied here until now
	for _, f := range files {
		if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
			return usageErr("%w", err)
		}
		if err := atomicfile.Write(f.path, f.data, 0o644); err != nil {
			return usageErr("%w", err)
		}
		fmt.Fprintf(ios.Out, "created %s\n", f.path)
	}
	for _, k := range kept {
		ios.Infof("kept %s, which exists (--force replaces it)", k)
	}
	if err := ignoreDist(ios); err != nil {
		return usageErr("%w", err)
	}
	if parent != "" {
		parent = relWD(parent)
		ios.Infof("note: %s applied here until now; the new %s takes its place in this folder and below", parent, config.File)
	}
	ios.Nextf("next: edit %s, then run: skillpack lint (skillpack new NAME starts a skill)", config.File)
	return nil
}

// initFiles renders the files init writes, for the working directory.
func initFiles(opts *initOptions) ([]initFile, error) {
	cfg, err := templates.Init.ReadFile("init/skillpack.yaml")
	if err != nil {
		return nil, err
	}
	// The template's profile, replaced (TestInitConfig checks it is there).
	cfg = []byte(strings.Replace(string(cfg), "\nprofile: clients\n", "\nprofile: "+opts.Profile+"\n", 1))
	files := []initFile{{config.File, cfg}}
	if opts.CI == "github" {
		wf, err := templates.Init.ReadFile("init/github-workflow.yml")
		if err != nil {
			return nil, err
		}
		text := strings.ReplaceAll(string(wf), "SKILLS", skillsFolder())
		text = strings.Replace(text, "branches: [main]", "branches: ["+branch()+"]", 1)
		if usesLFS() {
			// Without it the checkout holds LFS pointers, which lint refuses (lfs-pointer).
			text = strings.ReplaceAll(text, "      - uses: actions/checkout@v4\n", "      - uses: actions/checkout@v4\n        with:\n          lfs: true\n")
		}
		files = append(files, initFile{workflowPath, []byte(text)})
	}
	return files, nil
}

// skillsFolder is the folder the workflow lints and builds: skills/ when
// the repository keeps its skills there, as most do, else the whole
// repository (discovery skips .git, node_modules and built bundles).
func skillsFolder() string {
	if info, err := os.Stat("skills"); err == nil && info.IsDir() {
		return "skills"
	}
	return "."
}

// usesLFS reports whether .gitattributes keeps files in Git LFS.
func usesLFS() bool {
	data, err := os.ReadFile(".gitattributes")
	return err == nil && strings.Contains(string(data), "filter=lfs")
}

// branch is the branch the workflow builds on a push: the one checked out here, else main.
func branch() string {
	head, err := os.ReadFile(filepath.Join(".git", "HEAD"))
	name, ok := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: refs/heads/")
	if err != nil || !ok || name == "" || strings.ContainsAny(name, " []{},:#'\"") {
		return "main"
	}
	return name
}

// ignoreDist adds dist/, the bundle build writes by default, to
// .gitignore: the file is created, or the line appended once; a line that
// ignores dist already (dist, dist/, /dist or /dist/) is left as it is.
func ignoreDist(ios *IO) error {
	const path, line = ".gitignore", "dist/"
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); strings.Trim(l, "/") == "dist" {
			return nil
		}
	}
	created := err != nil
	add := line + "\n"
	if len(data) > 0 && data[len(data)-1] != '\n' {
		add = "\n" + add
	}
	// Appended in place, not replaced: the rest of the file is the user's.
	if err := appendFile(path, add); err != nil {
		return err
	}
	if created {
		fmt.Fprintf(ios.Out, "created %s\n", path)
	} else {
		fmt.Fprintf(ios.Out, "added %s to %s\n", line, path)
	}
	return nil
}

// appendFile appends s to file, which it creates when there is none.
func appendFile(file, s string) error {
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(s); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
