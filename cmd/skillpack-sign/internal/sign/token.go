package sign

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

// Where a keyless run finds its OIDC token, after --identity-token.
const (
	TokenEnv        = "SIGSTORE_ID_TOKEN"
	ActionsURLEnv   = "ACTIONS_ID_TOKEN_REQUEST_URL"
	ActionsTokenEnv = "ACTIONS_ID_TOKEN_REQUEST_TOKEN"
)

// audience is the audience Fulcio accepts.
const audience = "sigstore"

// tokenClient asks GitHub Actions for the token.
var tokenClient = &http.Client{Timeout: 30 * time.Second}

func errNoToken(env func(string) string) error {
	msg := "keyless signing needs an OIDC identity token: pass --identity-token, set " + TokenEnv +
		", or run in GitHub Actions with `permissions: id-token: write`; or sign with a key (--key)"
	if env("GITHUB_ACTIONS") == "true" {
		msg += " (this is GitHub Actions, but " + ActionsURLEnv + " is not set: the job lacks `permissions: id-token: write`)"
	}
	return errors.New(msg)
}

// hasToken reports whether some token source is configured, so that a run
// without one fails before anything is built.
func hasToken(flag string, env func(string) string) bool {
	return flag != "" || env(TokenEnv) != "" || (env(ActionsURLEnv) != "" && env(ActionsTokenEnv) != "")
}

// idToken returns the OIDC token: --identity-token (the token, or a file
// holding it, as cosign accepts), then SIGSTORE_ID_TOKEN, then GitHub
// Actions' token endpoint. It is called just before the certificate is
// requested, because GitHub's tokens and Fulcio's certificates are short-lived.
func idToken(ctx context.Context, flag string, env func(string) string) (string, error) {
	var tok, from string
	switch {
	case flag != "":
		tok, from = flag, "--identity-token"
		if !looksLikeJWT(flag) {
			data, err := os.ReadFile(flag)
			if err != nil {
				return "", fmt.Errorf("--identity-token is neither a JWT nor a readable file: %w", err)
			}
			tok, from = strings.TrimSpace(string(data)), flag
		}
	case env(TokenEnv) != "":
		tok, from = strings.TrimSpace(env(TokenEnv)), TokenEnv
	case env(ActionsURLEnv) != "" && env(ActionsTokenEnv) != "":
		t, err := actionsToken(ctx, env(ActionsURLEnv), env(ActionsTokenEnv))
		if err != nil {
			return "", err
		}
		tok, from = t, "GitHub Actions"
	default:
		return "", errNoToken(env)
	}
	if !looksLikeJWT(tok) {
		return "", fmt.Errorf("the identity token from %s is not a JWT (want header.payload.signature)", from)
	}
	return tok, nil
}

func looksLikeJWT(s string) bool {
	return strings.Count(s, ".") == 2 && !strings.ContainsAny(s, "/\\ \n")
}

// actionsToken asks GitHub Actions for a token with Fulcio's audience:
// GET $ACTIONS_ID_TOKEN_REQUEST_URL&audience=sigstore with the request
// token as a bearer token; the answer is {"value": "<jwt>"}.
func actionsToken(ctx context.Context, endpoint, bearer string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint, nil)
	if err != nil {
		return "", fmt.Errorf("%s: %w", ActionsURLEnv, err)
	}
	q := req.URL.Query()
	q.Set("audience", audience)
	req.URL.RawQuery = q.Encode()
	req.Header.Set("Authorization", "bearer "+bearer)
	req.Header.Set("Accept", "application/json")
	resp, err := tokenClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("fetching the GitHub Actions OIDC token: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", fmt.Errorf("fetching the GitHub Actions OIDC token: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("fetching the GitHub Actions OIDC token: %s: %s (does the job have `permissions: id-token: write`?)",
			resp.Status, strings.TrimSpace(string(body)))
	}
	var v struct {
		Value string `json:"value"`
	}
	if err := json.Unmarshal(body, &v); err != nil || v.Value == "" {
		return "", fmt.Errorf("fetching the GitHub Actions OIDC token: the answer has no \"value\"")
	}
	return v.Value, nil
}
