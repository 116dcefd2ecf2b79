package oci

import (
	"cmp"
	"fmt"
	"net/http"

	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/credentials"

	"github.com/skillpack/skillpack/publish"
)

// credential resolves the registry's login: Username and Password when
// given (--username, --password-stdin), else the Docker config and its
// credential helpers ($DOCKER_CONFIG/config.json or ~/.docker/config.json:
// `docker login`, `oras login`, docker-credential-*), as every other
// registry client does. A registry that needs no login gets none.
func credential(t Target, o Options) (auth.CredentialFunc, error) {
	if o.Username != "" || o.Password != "" {
		if o.Password == "" {
			return nil, fmt.Errorf("a username for %s needs a password (--password-stdin)", t.Registry)
		}
		return auth.StaticCredential(t.Registry, auth.Credential{Username: o.Username, Password: o.Password}), nil
	}
	store, err := credentials.NewStoreFromDocker(credentials.StoreOptions{})
	if err != nil {
		// A broken config file is the user's to fix; say which.
		return nil, fmt.Errorf("reading the Docker config for the credentials of %s: %w (fix the file, or pass --username and --password-stdin)", t.Registry, err)
	}
	return credentials.Credential(store), nil
}

// newClient is the HTTP client of one publish, pull or verify: each
// request, body included, within Options.Timeout. Retries are the runner's,
// not oras-go's retry client's, so that each object's attempts are
// counted and reported in one place.
func newClient(t Target, o Options) (*auth.Client, error) {
	cred, err := credential(t, o)
	if err != nil {
		return nil, err
	}
	return &auth.Client{
		Client: &http.Client{
			Transport: transport(cmp.Or(o.Jobs, publish.DefaultJobs)),
			Timeout:   cmp.Or(o.Timeout, publish.DefaultTimeout),
		},
		Credential: cred,
		Cache:      auth.NewCache(),
		Header:     http.Header{"User-Agent": {userAgent}},
	}, nil
}

// transport is http.DefaultTransport with an idle connection kept for
// each of the runner's jobs: with its two per host, every job but two
// would open a new connection for each request, and the registry would
// pay for each.
func transport(jobs int) http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = jobs
	return t
}
