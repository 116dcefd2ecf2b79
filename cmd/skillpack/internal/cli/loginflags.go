package cli

import (
	"bufio"
	"errors"
	"io"
	"strings"

	"github.com/spf13/pflag"
)

// LoginFlags are a publish target's credentials on the command line,
// shared by the targets (and by pull): the password never is a flag, so
// that it stays out of the shell's history and the process list.
type LoginFlags struct {
	Username      string
	PasswordStdin bool
	password      string // read from stdin by read
}

// AddFlags declares --username and --password-stdin on fs.
func (f *LoginFlags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&f.Username, "username", "", "log in as `name` (S3: the access key ID; default: the Docker config or the AWS environment)")
	fs.BoolVar(&f.PasswordStdin, "password-stdin", false, "read the password (S3: the secret access key) from stdin, its first line")
}

// read takes the password from stdin when --password-stdin asks, once:
// build --publish reads it before it builds, and publish's run again.
func (f *LoginFlags) read(in io.Reader) error {
	switch {
	case f.password != "":
		return nil
	case f.PasswordStdin && f.Username == "":
		return usageErr("--password-stdin needs --username: give both, or neither to use the stored credentials")
	case !f.PasswordStdin && f.Username != "":
		return usageErr("--username needs --password-stdin, with the password on stdin: echo \"$TOKEN\" | skillpack ... --username NAME --password-stdin")
	case !f.PasswordStdin:
		return nil
	}
	line, err := bufio.NewReader(in).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return usageErr("--password-stdin: %w", err)
	}
	f.password = strings.TrimRight(line, "\r\n")
	if f.password == "" {
		return usageErr("--password-stdin: stdin is empty; pipe the password in: echo \"$TOKEN\" | skillpack ... --username NAME --password-stdin")
	}
	return nil
}
