module github.com/h5proxy/h5proxy

go 1.26.8

require (
	github.com/rs/zerolog v1.35.1
	go.uber.org/automaxprocs v1.6.0
	golang.org/x/sys v0.29.0
	gonum.org/v1/hdf5 v0.0.0-20210714002203-8c5d23bc6946
)

require (
	github.com/mattn/go-colorable v0.1.14 // indirect
	github.com/mattn/go-isatty v0.0.20 // indirect
)
