package documents

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
)

// Server-side encryption modes accepted in S3Config.ServerSideEncryption.
const (
	// SSEAES256 asks S3 to encrypt with S3-managed keys (SSE-S3). The default.
	SSEAES256 = "AES256"
	// SSEKMS asks S3 to encrypt with a KMS key (SSE-KMS); S3Config.KMSKeyID
	// names the key, or the bucket's default KMS key is used.
	SSEKMS = "aws:kms"
	// SSENone sends no encryption header, for S3-compatible servers that
	// reject it or encrypt at rest on their own. Choose it explicitly.
	SSENone = "none"
)

// S3Config says where and how to reach an S3 or S3-compatible bucket.
type S3Config struct {
	// Endpoint is the base URL of an S3-compatible server, such as
	// "http://127.0.0.1:7070". Empty means AWS S3.
	Endpoint string
	// Region is the bucket's region, such as "us-east-1".
	Region string
	// Bucket is the bucket that holds the objects.
	Bucket string
	// AccessKeyID and SecretAccessKey are static credentials. Leave both
	// empty to use the AWS default chain (environment, web identity, instance
	// role).
	AccessKeyID     string
	SecretAccessKey string
	// UsePathStyle addresses the bucket as endpoint/bucket instead of
	// bucket.endpoint, as most S3-compatible servers need.
	UsePathStyle bool
	// ServerSideEncryption is SSEAES256 (the default when empty), SSEKMS or
	// SSENone.
	ServerSideEncryption string
	// KMSKeyID optionally names the KMS key when ServerSideEncryption is
	// SSEKMS.
	KMSKeyID string
}

// S3Storage keeps objects in an S3 bucket.
type S3Storage struct {
	client   *s3.Client
	bucket   string
	sse      types.ServerSideEncryption
	kmsKeyID string
}

var _ Storage = (*S3Storage)(nil)

// NewS3Storage builds a client for the bucket. It does not contact the
// server; call Ping for a start-up check.
func NewS3Storage(ctx context.Context, cfg S3Config) (*S3Storage, error) {
	if cfg.Bucket == "" {
		return nil, errors.New("documents: S3 bucket is empty")
	}
	if cfg.Region == "" {
		return nil, errors.New("documents: S3 region is empty")
	}
	if (cfg.AccessKeyID == "") != (cfg.SecretAccessKey == "") {
		return nil, errors.New("documents: S3 access key ID and secret access key must be set together")
	}
	sse, err := parseSSE(cfg.ServerSideEncryption)
	if err != nil {
		return nil, err
	}
	if cfg.KMSKeyID != "" && sse != types.ServerSideEncryptionAwsKms {
		return nil, fmt.Errorf("documents: S3 KMS key ID set but server-side encryption is %q, not %q", cfg.ServerSideEncryption, SSEKMS)
	}
	opts := []func(*config.LoadOptions) error{config.WithRegion(cfg.Region)}
	if cfg.AccessKeyID != "" {
		opts = append(opts, config.WithCredentialsProvider(
			credentials.NewStaticCredentialsProvider(cfg.AccessKeyID, cfg.SecretAccessKey, "")))
	}
	awsCfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("documents: loading AWS configuration: %w", err)
	}
	client := s3.NewFromConfig(awsCfg, func(o *s3.Options) {
		if cfg.Endpoint != "" {
			o.BaseEndpoint = aws.String(cfg.Endpoint)
		}
		o.UsePathStyle = cfg.UsePathStyle
	})
	return &S3Storage{client: client, bucket: cfg.Bucket, sse: sse, kmsKeyID: cfg.KMSKeyID}, nil
}

func parseSSE(mode string) (types.ServerSideEncryption, error) {
	switch mode {
	case "", SSEAES256:
		return types.ServerSideEncryptionAes256, nil
	case SSEKMS:
		return types.ServerSideEncryptionAwsKms, nil
	case SSENone:
		return "", nil
	default:
		return "", fmt.Errorf("documents: unknown S3 server-side encryption %q (want %q, %q or %q)", mode, SSEAES256, SSEKMS, SSENone)
	}
}

// Ping checks that the bucket exists and the credentials reach it.
func (s *S3Storage) Ping(ctx context.Context) error {
	if _, err := s.client.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(s.bucket)}); err != nil {
		return fmt.Errorf("documents: reaching S3 bucket %s: %w", s.bucket, err)
	}
	return nil
}

// Put uploads the object in one PutObject request with an explicit length.
// The SDK streams a seekable body from its current position (reading it a
// second time when it must hash the payload), so no file is held in memory.
// S3 stores an object only when the whole body arrived, so a failed Put
// leaves the key as it was.
func (s *S3Storage) Put(ctx context.Context, key string, body io.ReadSeeker, size int64, contentType string) error {
	if err := checkPut(key, body, size, contentType); err != nil {
		return err
	}
	input := &s3.PutObjectInput{
		Bucket:        aws.String(s.bucket),
		Key:           aws.String(key),
		Body:          body,
		ContentLength: aws.Int64(size),
		ContentType:   aws.String(contentType),
	}
	if s.sse != "" {
		input.ServerSideEncryption = s.sse
	}
	if s.kmsKeyID != "" {
		input.SSEKMSKeyId = aws.String(s.kmsKeyID)
	}
	if _, err := s.client.PutObject(ctx, input); err != nil {
		return fmt.Errorf("documents: putting %s: %w", key, err)
	}
	return nil
}

// Open starts a GetObject and returns its streaming body.
func (s *S3Storage) Open(ctx context.Context, key string) (io.ReadCloser, ObjectInfo, error) {
	if err := ValidateKey(key); err != nil {
		return nil, ObjectInfo{}, err
	}
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)})
	if err != nil {
		if isS3NotFound(err) {
			return nil, ObjectInfo{}, ErrNotFound
		}
		return nil, ObjectInfo{}, fmt.Errorf("documents: getting %s: %w", key, err)
	}
	info := ObjectInfo{Size: aws.ToInt64(out.ContentLength), ContentType: aws.ToString(out.ContentType)}
	return out.Body, info, nil
}

// Delete removes the object. S3 reports success for a missing key, which
// matches the Storage contract.
func (s *S3Storage) Delete(ctx context.Context, key string) error {
	if err := ValidateKey(key); err != nil {
		return err
	}
	if _, err := s.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)}); err != nil {
		return fmt.Errorf("documents: deleting %s: %w", key, err)
	}
	return nil
}

func isS3NotFound(err error) bool {
	var noSuchKey *types.NoSuchKey
	if errors.As(err, &noSuchKey) {
		return true
	}
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		switch apiErr.ErrorCode() {
		case "NoSuchKey", "NotFound":
			return true
		}
	}
	return false
}
