// Package deploytest tests the portal as operators run it: the container image
// started with podman (image_test.go), and three replicas of the real binary on
// one Postgres, one S3 and one standalone sandbox behind HAProxy
// (replicas_test.go). It holds no code of its own; `make test` builds the image
// and installs podman and HAProxy.
package deploytest
