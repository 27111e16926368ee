package pvesim

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"os"
	"time"
)

// Server is a running simulator endpoint.
type Server struct {
	URL    string // https://127.0.0.1:PORT (or http:// for StartHTTP)
	CAFile string // where the CA certificate was written, if asked to
	CAPEM  []byte // the CA certificate that signed the server certificate

	srv *http.Server
	ln  net.Listener
}

// Close stops the server and closes its connections.
func (srv *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := srv.srv.Shutdown(ctx); err != nil {
		return srv.srv.Close()
	}
	return nil
}

// StartTLS serves the API over TLS on addr ("127.0.0.1:0" picks a port). A
// CA is generated for this server; its PEM is written to caFile unless that
// is empty. The server speaks HTTP/1.1 only, like pveproxy (W1): it never
// negotiates h2.
func (s *Sim) StartTLS(addr, caFile string) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	host, _, err := net.SplitHostPort(ln.Addr().String())
	if err != nil {
		_ = ln.Close()
		return nil, err
	}
	caPEM, cert, err := issueCertificates(host)
	if err != nil {
		_ = ln.Close()
		return nil, err
	}
	if caFile != "" {
		if err := os.WriteFile(caFile, caPEM, 0o600); err != nil {
			_ = ln.Close()
			return nil, fmt.Errorf("write CA file: %w", err)
		}
	}
	hs := s.httpServer()
	hs.TLSConfig = &tls.Config{
		Certificates: []tls.Certificate{cert},
		NextProtos:   []string{"http/1.1"},
		MinVersion:   tls.VersionTLS12,
	}
	// A non-nil, empty TLSNextProto turns off net/http's automatic HTTP/2.
	hs.TLSNextProto = map[string]func(*http.Server, *tls.Conn, http.Handler){}
	tlsLn := tls.NewListener(ln, hs.TLSConfig)
	srv := &Server{URL: "https://" + ln.Addr().String(), CAFile: caFile, CAPEM: caPEM, srv: hs, ln: tlsLn}
	go serveUntilClosed(hs, tlsLn)
	return srv, nil
}

// StartHTTP serves the API over plain HTTP/1.1, for in-process tests.
func (s *Sim) StartHTTP(addr string) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	hs := s.httpServer()
	hs.TLSNextProto = map[string]func(*http.Server, *tls.Conn, http.Handler){}
	srv := &Server{URL: "http://" + ln.Addr().String(), srv: hs, ln: ln}
	go serveUntilClosed(hs, ln)
	return srv, nil
}

func (s *Sim) httpServer() *http.Server {
	return &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		// Clients that drop TLS handshakes are normal in tests, not news.
		ErrorLog: log.New(io.Discard, "", 0),
	}
}

func serveUntilClosed(hs *http.Server, ln net.Listener) {
	// Serve returns ErrServerClosed on Close; any other failure shows up to
	// clients as refused connections, which is all a caller could observe.
	_ = hs.Serve(ln)
}

// issueCertificates makes a throw-away CA and a server certificate for host
// (plus localhost and the loopback addresses), both ECDSA P-256.
func issueCertificates(host string) (caPEM []byte, cert tls.Certificate, err error) {
	now := time.Now()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, cert, err
	}
	caTmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "pvesim CA", Organization: []string{"pvesim"}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(10 * 365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, cert, err
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, cert, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, cert, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: "pve1.pvesim.invalid", Organization: []string{"pvesim"}},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(2 * 365 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{"localhost", "pve1.pvesim.invalid"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	if ip := net.ParseIP(host); ip != nil && !ip.IsUnspecified() {
		tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
	} else if host != "" && ip == nil {
		tmpl.DNSNames = append(tmpl.DNSNames, host)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
	if err != nil {
		return nil, cert, err
	}
	cert = tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
	caPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
	return caPEM, cert, nil
}

func serial() *big.Int {
	b := make([]byte, 16)
	randomBytes(b)
	return new(big.Int).SetBytes(b)
}
