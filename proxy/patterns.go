package proxy

// Every built-in pattern is available to every program that uses the proxy.
import _ "github.com/h5proxy/h5proxy/patterns/all"
