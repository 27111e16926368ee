package fwutil

// The plugin SDK logs at trace level unless told otherwise: every request
// writes dozens of JSON lines to stderr, and Terraform (or OpenTofu) parses
// each one only to drop it when its own log level leaves provider logs out.
// In a plan of a few hundred guests that costs the provider about a sixth of
// its CPU, for lines nobody sees.

// terraformLogEnvs are the variables with which Terraform and OpenTofu keep
// a provider's log lines; when none is set, every line is discarded.
var terraformLogEnvs = []string{"TF_LOG", "TF_LOG_PROVIDER"}

// sdkLogLevelEnvs set the level of the plugin SDK's loggers: its root, the
// protocol server and the framework; and of the provider's own logger
// (TF_LOG_PROVIDER_ followed by the provider's type name), which carries
// the API request log.
var sdkLogLevelEnvs = []string{"TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK", "TF_LOG_PROVIDER_PVE"}

// QuietDiscardedLogs turns the plugin SDK's loggers and the provider's own
// off when Terraform will discard what they write: when neither TF_LOG nor
// TF_LOG_PROVIDER is set.
// A level set explicitly for an SDK logger is left alone. It must run before
// the provider server starts, which reads the levels once. A provider
// started for a debugger prints its own logs and should not call it.
func QuietDiscardedLogs(lookupEnv func(string) (string, bool), setEnv func(string, string) error) error {
	for _, name := range terraformLogEnvs {
		if value, ok := lookupEnv(name); ok && value != "" {
			return nil
		}
	}
	for _, name := range sdkLogLevelEnvs {
		if value, ok := lookupEnv(name); ok && value != "" {
			continue
		}
		if err := setEnv(name, "off"); err != nil {
			return err
		}
	}
	return nil
}
