package cli

import (
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/skillpack/skillpack/internal/version"
)

func newManCmd(ios *IO) *cobra.Command {
	return &cobra.Command{
		Use:   "man DIR",
		Short: "Write the man pages into DIR",
		Long: `Man writes a man page for skillpack (skillpack.1) and one for each command
(skillpack-lint.1, skillpack-build.1, ...) into DIR, from the same help
text --help prints. The pages are dated SOURCE_DATE_EPOCH when it is set,
so that a release build writes the same bytes every time.`,
		Example: `  skillpack man share/man/man1
  man -l share/man/man1/skillpack-lint.1`,
		Hidden: true, // for packagers and release builds, not for daily use
		Args:   oneArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMan(ios, cmd.Root(), args[0])
		},
	}
}

func runMan(ios *IO, root *cobra.Command, dir string) error {
	epoch, err := sourceDateEpoch(ios)
	if err != nil {
		return err
	}
	header := &doc.GenManHeader{Title: "SKILLPACK", Section: "1", Source: "skillpack " + version.Version(), Manual: "skillpack manual"}
	if !epoch.IsZero() {
		header.Date = &epoch
	}
	if info, err := os.Stat(dir); err == nil && !info.IsDir() {
		return usageErr("%s is a file; give the folder to write the man pages into", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return usageErr("%w", err)
	}
	if err := doc.GenManTree(root, header, dir); err != nil {
		return &exitError{code: ExitInternal, err: err}
	}
	ios.Infof("wrote the man pages into %s", dir)
	return nil
}
