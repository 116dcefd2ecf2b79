package cli

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/skillpack/skillpack/internal/version"
	"github.com/skillpack/skillpack/pack"
)

func newVersionCmd(ios *IO) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version and the pinned compressor",
		Long: `Version prints skillpack's module version, the Go toolchain that built it, and
the pinned compressor and level. Archive bytes depend on the compressor, so
two builds are only byte-identical when both lines agree.

--json prints the same as a JSON document (schema/version.schema.json).`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			info := struct {
				Version    string `json:"version"`
				Module     string `json:"module"`
				Go         string `json:"go"`
				Platform   string `json:"platform"`
				Compressor string `json:"compressor"`
				status
			}{version.Version(), version.Module, runtime.Version(), runtime.GOOS + "/" + runtime.GOARCH, pack.Generator(), status{}}
			if asJSON {
				return jsonResult(ios.Out, true, info, nil)
			}
			_, err := fmt.Fprintf(ios.Out, "skillpack %s\nmodule:     %s\ngo:         %s %s\ncompressor: %s\n",
				info.Version, info.Module, info.Go, info.Platform, info.Compressor)
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON document on stdout")
	return cmd
}
