package host

// HostNamespace is hostNamespace, for the tests of package host_test.
var HostNamespace = hostNamespace
