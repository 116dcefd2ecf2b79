// Command skillpack lints, packs, signs and publishes Agent Skills.
package main

import (
	"os"

	"github.com/skillpack/skillpack/cmd/skillpack/internal/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
