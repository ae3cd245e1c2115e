//go:build tools

// Package tools pins the Kubernetes provider's packages so `go mod tidy` keeps their dependencies.
// The provider's main package embeds two JSON files its Makefile generates (absent from the module zip), so
// scripts/pulumi_tools.py copies its main.go next to them in a build folder and builds that.
package tools

import (
	_ "github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/provider"
	_ "github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/version"
)
