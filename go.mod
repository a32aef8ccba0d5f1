module github.com/ctxkit/ctxkit

go 1.24

require (
	github.com/dlclark/regexp2 v1.10.0
	github.com/pkoukk/tiktoken-go v0.1.8
	github.com/pkoukk/tiktoken-go-loader v0.0.2
)

require github.com/google/uuid v1.3.0 // indirect
