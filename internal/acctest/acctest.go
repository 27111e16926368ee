// Package acctest runs Terraform-level tests against an in-process PVE
// simulator, or against a live PVE node when one is configured (TF_ACC=1 and
// PVE_ENDPOINT plus credentials). The same test bodies serve both.
package acctest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	fwprovider "github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/proxops/terraform-provider-pve/internal/provider"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

// pollInterval keeps the test's own task polling quick against the
// simulator.
const pollInterval = 10 * time.Millisecond

// The simulator's tasks take simTaskDuration and /cluster/resources lags by
// up to simStatsInterval, as on PVE (shorter), so every test goes through
// running tasks, the locks they hold and a lagging listing. A test that
// needs tasks to end at once starts its own simulator and says why.
const (
	simTaskDuration  = 100 * time.Millisecond
	simStatsInterval = 300 * time.Millisecond
)

// Target is where one test runs. Sim is nil against a live node; Client
// speaks to the same target either way, for checks and for changes made
// "outside Terraform".
type Target struct {
	Sim    *pvesim.Sim
	Client *pveapi.Client

	// connection is Client's configuration without its credentials.
	connection    pveapi.Config
	providerBlock string
	factories     map[string]func() (tfprotov6.ProviderServer, error)
	// endpoint and caFile reach the simulator, for clients of other
	// identities (identity.go).
	endpoint, caFile string
}

// IsLive reports whether the tests are configured to run against a live PVE.
func IsLive() bool {
	return os.Getenv("TF_ACC") != "" && os.Getenv("PVE_ENDPOINT") != ""
}

// PVEVersionEnv names the environment variable that selects the PVE release
// the simulator serves to tests that do not choose one: "8.4", "9.1" or
// "9.2" (pvesim.PVEVersions); empty means the simulator's default. It lets
// a whole suite run against another release:
//
//	PVE_SIM_VERSION=8.4 go test ./internal/service/...
const PVEVersionEnv = "PVE_SIM_VERSION"

// New prepares a target for one test: a fresh simulator of its own (so tests
// run in parallel without seeing each other), or the live node.
func New(t *testing.T) *Target {
	t.Helper()
	if IsLive() {
		return newLive(t)
	}
	return newSim(t, false, os.Getenv(PVEVersionEnv), nil)
}

// NewOnPVE is New with the simulator serving the given PVE release ("8.4",
// "9.1", "9.2"), for the tests that pin what differs between releases.
// Against a live node it is New: the node is the release it is.
func NewOnPVE(t *testing.T, version string) *Target {
	t.Helper()
	if IsLive() {
		return newLive(t)
	}
	return newSim(t, false, version, nil)
}

// NewRestricted is NewOnPVE with the token (the provider's and the test's
// own) holding only the given privileges, on every path: the simulator's
// privilege checks then show whether they suffice. A live node's token is
// what the environment gives, so the test is skipped there.
func NewRestricted(t *testing.T, version string, privileges []string) *Target {
	t.Helper()
	if IsLive() {
		t.Skip("restricts the simulator's token")
	}
	return newSim(t, false, version, privileges)
}

// NewWithPassword is New with ticket authentication (username and
// password) between the provider and the simulator instead of an API token.
// Against a live node it is New: the environment decides.
func NewWithPassword(t *testing.T) *Target {
	t.Helper()
	if IsLive() {
		return newLive(t)
	}
	return newSim(t, true, os.Getenv(PVEVersionEnv), nil)
}

// newSim starts a simulator; privileges, when not nil, are all the token
// holds; otherTokens ("USER@REALM!NAME=SECRET") are more identities.
func newSim(t *testing.T, passwordAuth bool, pveVersion string, privileges []string, otherTokens ...string) *Target {
	t.Helper()
	token := "root@pam!acctest=" + randomHex(16)
	password := randomHex(12)
	opts := pvesim.Options{
		Tokens:        append([]string{token}, otherTokens...),
		Passwords:     []string{"root@pam=" + password},
		TaskDuration:  simTaskDuration,
		StatsInterval: simStatsInterval,
		PVEVersion:    pveVersion,
	}
	if privileges != nil {
		// A token is restricted by its full id, USER@REALM!TOKENID.
		opts.Privileges = map[string][]string{token[:strings.LastIndexByte(token, '=')]: privileges}
	}
	sim, err := pvesim.New(opts)
	if err != nil {
		t.Fatalf("start simulator: %v", err)
	}
	caFile := filepath.Join(t.TempDir(), "pvesim-ca.pem")
	srv, err := sim.StartTLS("127.0.0.1:0", caFile)
	if err != nil {
		t.Fatalf("serve simulator: %v", err)
	}
	t.Cleanup(func() { _ = srv.Close() })

	// Checks made by the test itself always use the token.
	connection := pveapi.Config{Endpoint: srv.URL, CAFile: caFile, TaskPollInterval: pollInterval}
	withToken := connection
	withToken.APIToken = token
	client, err := pveapi.New(withToken)
	if err != nil {
		t.Fatalf("client for simulator: %v", err)
	}

	block := fmt.Sprintf("provider \"pve\" {\n  endpoint  = %q\n  api_token = %q\n  ca_file   = %q\n}\n", srv.URL, token, caFile)
	if passwordAuth {
		block = fmt.Sprintf("provider \"pve\" {\n  endpoint = %q\n  username = \"root@pam\"\n  password = %q\n  ca_file  = %q\n}\n", srv.URL, password, caFile)
	}

	// The provider gets an empty environment: settings from the developer's
	// shell must not leak into tests against the simulator.
	noEnv := func(string) string { return "" }
	return &Target{
		Sim:           sim,
		Client:        client,
		connection:    connection,
		providerBlock: block,
		factories:     factories(provider.NewWithEnv("test", noEnv)),
		endpoint:      srv.URL,
		caFile:        caFile,
	}
}

func newLive(t *testing.T) *Target {
	t.Helper()
	cfg := pveapi.Config{
		Endpoint: os.Getenv("PVE_ENDPOINT"),
		APIToken: os.Getenv("PVE_API_TOKEN"),
		Username: os.Getenv("PVE_USERNAME"),
		Password: os.Getenv("PVE_PASSWORD"),
		CAFile:   os.Getenv("PVE_CA_FILE"),
		Insecure: os.Getenv("PVE_INSECURE") == "1" || strings.EqualFold(os.Getenv("PVE_INSECURE"), "true"),
	}
	client, err := pveapi.New(cfg)
	if err != nil {
		t.Fatalf("client for live PVE: %v", err)
	}
	block := "provider \"pve\" {}\n"
	if r := os.Getenv("PVE_ACC_VMID_RANGE"); r != "" {
		low, high, ok := parseVMIDRange(r)
		if !ok {
			t.Fatalf("PVE_ACC_VMID_RANGE must be MIN-MAX, e.g. 9000-9099; got %q", r)
		}
		// Tests create guests only inside this range on a shared node.
		block = fmt.Sprintf("provider \"pve\" {\n  vmid_range = { min = %d, max = %d }\n}\n", low, high)
	}
	connection := cfg
	connection.APIToken, connection.Username, connection.Password = "", "", ""
	return &Target{
		Client:        client,
		connection:    connection,
		providerBlock: block,
		factories:     factories(provider.New("test")),
	}
}

func parseVMIDRange(s string) (low, high int, ok bool) {
	lowText, highText, found := strings.Cut(strings.TrimSpace(s), "-")
	if !found {
		return 0, 0, false
	}
	low, errLow := strconv.Atoi(strings.TrimSpace(lowText))
	high, errHigh := strconv.Atoi(strings.TrimSpace(highText))
	if errLow != nil || errHigh != nil || low < 100 || high < low {
		return 0, 0, false
	}
	return low, high, true
}

func factories(p func() fwprovider.Provider) map[string]func() (tfprotov6.ProviderServer, error) {
	newServer := providerserver.NewProtocol6WithError(p())
	schema := &schemaOnce{}
	return map[string]func() (tfprotov6.ProviderServer, error){
		"pve": func() (tfprotov6.ProviderServer, error) {
			server, err := newServer()
			if err != nil {
				return nil, err
			}
			full, ok := server.(fullProviderServer)
			if !ok {
				return server, nil
			}
			return schemaCachingServer{fullProviderServer: full, schema: schema}, nil
		},
	}
}

// Every Terraform command of a test asks a new provider server for the
// provider's schema, and building it is a good part of what the provider
// does for the test. The schema does not change within a test process, so
// a test's servers build it once and share the answer. The framework
// serves every other call without being asked for its schema first
// (Terraform may skip that call; see ServerCapabilities), so the servers
// behave as when Terraform asks each of them.
type schemaCachingServer struct {
	fullProviderServer
	schema *schemaOnce
}

// fullProviderServer is every call a provider server may serve: the
// wrapper passes on the optional ones too. terraform-plugin-go finds them
// through these interfaces until they move into ProviderServer.
type fullProviderServer interface {
	tfprotov6.ProviderServer
	tfprotov6.ProviderServerWithListResource //nolint:staticcheck // how terraform-plugin-go finds list calls today
	tfprotov6.ProviderServerWithActions      //nolint:staticcheck // how terraform-plugin-go finds action calls today
	tfprotov6.ProviderServerWithStateStores  //nolint:staticcheck // how terraform-plugin-go finds state store calls today
}

type schemaOnce struct {
	once sync.Once
	resp *tfprotov6.GetProviderSchemaResponse
	err  error
}

func (s schemaCachingServer) GetProviderSchema(ctx context.Context, req *tfprotov6.GetProviderSchemaRequest) (*tfprotov6.GetProviderSchemaResponse, error) {
	s.schema.once.Do(func() {
		s.schema.resp, s.schema.err = s.fullProviderServer.GetProviderSchema(ctx, req)
	})
	return s.schema.resp, s.schema.err
}

// Config prefixes a test configuration with the provider block for this
// target.
func (tg *Target) Config(body string) string {
	return tg.providerBlock + body
}

// Run runs a Terraform-level test case. Against the simulator it is a unit
// test (no TF_ACC needed); against a live node it is an acceptance test.
// Every applying step is followed by a plan that must be empty; that check is
// terraform-plugin-testing's default and stays on.
func (tg *Target) Run(t *testing.T, tc resource.TestCase) {
	t.Helper()
	tc.ProtoV6ProviderFactories = tg.factories
	useTerraformWrapper()
	useOpenTofu()
	if tg.Sim != nil {
		resource.UnitTest(t, tc)
		return
	}
	resource.Test(t, tc)
}

// UnitTest runs a Terraform-level test case that brings its own provider
// factories, with the CLI prepared as for Run (the wrapper, OpenTofu's
// provider address).
func UnitTest(t *testing.T, tc resource.TestCase) {
	t.Helper()
	useTerraformWrapper()
	useOpenTofu()
	resource.UnitTest(t, tc)
}

// ClientWithToken is a client for the same target that authenticates with
// another API token, USER@REALM!NAME=SECRET: to check what a token a test
// created can do.
func (tg *Target) ClientWithToken(t *testing.T, apiToken string) *pveapi.Client {
	t.Helper()
	cfg := tg.connection
	cfg.APIToken = apiToken
	client, err := pveapi.New(cfg)
	if err != nil {
		t.Fatalf("client with another token: %v", err)
	}
	return client
}

// Name returns a name unique to this test run, so tests against a shared
// live node never collide with each other or with what an operator made.
func Name(prefix string) string {
	return prefix + "-" + randomHex(4)
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

// Outside waits for a task started outside Terraform (a change an operator
// makes between steps) and fails the test when it could not run.
func (tg *Target) Outside(t *testing.T, what, upid string, err error) {
	t.Helper()
	if err == nil {
		_, err = tg.Client.WaitTask(context.Background(), upid)
	}
	if err != nil {
		t.Fatalf("%s outside Terraform: %v", what, err)
	}
}
