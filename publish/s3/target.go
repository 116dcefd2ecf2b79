package s3

import (
	"cmp"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/minio/minio-go/v7/pkg/s3utils"
	"github.com/skillpack/skillpack/publish"
)

// Scheme begins every target this package publishes to.
const Scheme = "s3://"

// Target is where a bundle goes: a bucket and a prefix in it.
type Target struct {
	Bucket string
	Prefix string // no leading or trailing slash; "" for the bucket's root
}

// String spells the target as it is given: s3://bucket/prefix.
func (t Target) String() string { return Scheme + path.Join(t.Bucket, t.Prefix) }

// Key is the object key of a bundle path.
func (t Target) Key(path string) string {
	if t.Prefix == "" {
		return path
	}
	return t.Prefix + "/" + path
}

// ParseTarget reads s3://bucket[/prefix]. The prefix is a folder of
// clean segments: a bundle is published below it, and pruning never
// looks above it.
func ParseTarget(s string) (Target, error) {
	rest, ok := strings.CutPrefix(s, Scheme)
	if !ok {
		return Target{}, fmt.Errorf("%s: not an s3:// target; give s3://bucket or s3://bucket/prefix", s)
	}
	bucket, prefix, _ := strings.Cut(rest, "/")
	prefix = strings.TrimSuffix(prefix, "/")
	if err := s3utils.CheckValidBucketNameStrict(bucket); err != nil {
		return Target{}, fmt.Errorf("%s: %q is not a bucket name (%v); give s3://bucket/prefix", s, bucket, err)
	}
	if prefix != "" {
		for _, seg := range strings.Split(prefix, "/") {
			if seg == "" || seg == "." || seg == ".." || strings.ContainsAny(seg, "\\?#") || strings.ContainsFunc(seg, isControl) {
				return Target{}, fmt.Errorf("%s: the prefix %q has an empty, dot or unusual segment; give clean folder names such as s3://%s/skills", s, prefix, bucket)
			}
		}
	}
	return Target{Bucket: bucket, Prefix: prefix}, nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// Options say how to reach the server and what to do there. The zero
// value publishes to AWS S3 with the credentials of the environment.
type Options struct {
	// Endpoint is the server's S3 API, as a URL: https://ACCOUNT.r2.cloudflarestorage.com,
	// https://storage.googleapis.com, http://127.0.0.1:7070. "" is AWS S3.
	Endpoint string
	// Insecure allows an http:// endpoint on a host other than loopback,
	// where credentials and bytes cross the network in the clear.
	Insecure bool
	// Region signs the requests; "" is AWS_REGION or AWS_DEFAULT_REGION,
	// else the bucket's region as the server tells it.
	Region string
	// AccessKey and SecretKey replace the credential chain when given.
	AccessKey, SecretKey string

	DryRun bool // list and compare, report what would change, change nothing
	Prune  bool // delete what no kept release names (see the package comment)
	Keep   int  // releases Prune keeps, the new one included; 0: publish.DefaultKeep

	// Retry is how requests are run and retried (Jobs' default:
	// DefaultJobs); its Now is also the release's time.
	publish.Retry
	// Getenv reads AWS_REGION, AWS_DEFAULT_REGION and AWS_CA_BUNDLE (nil:
	// os.Getenv); the credential chain reads the environment itself.
	Getenv func(string) string
}

// DefaultJobs is Options.Jobs' default: S3 requests are small and
// mostly waiting, so more than publish's.
const DefaultJobs = 16

func (o *Options) getenv(k string) string {
	if o.Getenv != nil {
		return o.Getenv(k)
	}
	return os.Getenv(k)
}

// endpoint is the host[:port] minio-go wants and whether it is TLS.
func (o *Options) endpoint() (host string, secure bool, err error) {
	if o.Endpoint == "" {
		return "s3.amazonaws.com", true, nil
	}
	u, err := url.Parse(o.Endpoint)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
		return "", false, fmt.Errorf("--endpoint %s: give the server's URL alone, such as https://ACCOUNT.r2.cloudflarestorage.com or http://127.0.0.1:7070", o.Endpoint)
	}
	if u.Scheme == "http" && !o.Insecure && !publish.Loopback(u.Host) {
		return "", false, fmt.Errorf("--endpoint %s: plain http sends the credentials and the bundle in the clear; use https, or --insecure if the network is private", o.Endpoint)
	}
	return u.Host, u.Scheme == "https", nil
}

// Check refuses options that cannot work (an endpoint that is not a
// server's URL, plain http to another machine without Insecure, a key
// without its secret) before anything is read or sent.
func (o Options) Check() error {
	if _, _, err := o.endpoint(); err != nil {
		return err
	}
	if (o.AccessKey == "") != (o.SecretKey == "") {
		return errHalfKey
	}
	return nil
}

var errHalfKey = errors.New("--username is the access key and --password-stdin the secret key: give both, or neither to use AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY or the shared credentials file")

// client makes the minio-go client for o.
func (o *Options) client() (*minio.Client, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	host, secure, _ := o.endpoint()
	creds := credentials.NewChainCredentials([]credentials.Provider{
		&credentials.EnvAWS{},
		&credentials.FileAWSCredentials{},
		&credentials.IAM{Client: &http.Client{Timeout: 5 * time.Second}},
	})
	if o.AccessKey != "" {
		creds = credentials.NewStaticV4(o.AccessKey, o.SecretKey, "")
	}
	tr, err := minio.DefaultTransport(secure)
	if err != nil {
		return nil, err
	}
	if bundle := o.getenv("AWS_CA_BUNDLE"); bundle != "" && secure {
		// As the AWS CLI does: a private CA for an S3-compatible server.
		pem, err := os.ReadFile(bundle)
		if err != nil {
			return nil, fmt.Errorf("AWS_CA_BUNDLE: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("AWS_CA_BUNDLE %s: no PEM certificate in it", bundle)
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	return minio.New(host, &minio.Options{
		Creds:     creds,
		Secure:    secure,
		Region:    cmp.Or(o.Region, o.getenv("AWS_REGION"), o.getenv("AWS_DEFAULT_REGION")),
		Transport: tr,
		// The sha256 checksum publish sends is a header minio-go takes
		// only from a client that could send it as a trailer.
		TrailingHeaders: true,
		MaxRetries:      1, // publish.Runner retries
	})
}
