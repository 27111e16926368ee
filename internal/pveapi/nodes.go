package pveapi

import (
	"context"
	"net/url"
)

// Node is one entry of GET /nodes.
type Node struct {
	Node           string        `json:"node"`
	Status         string        `json:"status"` // online, offline, unknown
	CPU            FloatOrString `json:"cpu,omitempty"`
	MaxCPU         IntOrString   `json:"maxcpu,omitempty"`
	Mem            IntOrString   `json:"mem,omitempty"`
	MaxMem         IntOrString   `json:"maxmem,omitempty"`
	Disk           IntOrString   `json:"disk,omitempty"`
	MaxDisk        IntOrString   `json:"maxdisk,omitempty"`
	Uptime         IntOrString   `json:"uptime,omitempty"`
	Level          string        `json:"level,omitempty"`
	SSLFingerprint string        `json:"ssl_fingerprint,omitempty"`
}

// Nodes lists the cluster's nodes.
func (c *Client) Nodes(ctx context.Context) ([]Node, error) {
	var out []Node
	if err := c.Get(ctx, "/nodes", nil, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// NodeMemory is a byte counter group of GET /nodes/{node}/status.
type NodeMemory struct {
	Total     IntOrString `json:"total"`
	Used      IntOrString `json:"used"`
	Free      IntOrString `json:"free"`
	Available IntOrString `json:"available,omitempty"`
}

// NodeStatus is GET /nodes/{node}/status.
type NodeStatus struct {
	CPU     FloatOrString `json:"cpu"`
	CPUInfo struct {
		Model   string      `json:"model"`
		Cores   IntOrString `json:"cores"`
		CPUs    IntOrString `json:"cpus"`
		Sockets IntOrString `json:"sockets"`
	} `json:"cpuinfo"`
	Memory        NodeMemory       `json:"memory"`
	Swap          NodeMemory       `json:"swap"`
	RootFS        NodeMemory       `json:"rootfs"`
	Uptime        IntOrString      `json:"uptime"`
	LoadAvg       []StringOrNumber `json:"loadavg"`
	PVEVersion    string           `json:"pveversion"`
	KVersion      string           `json:"kversion,omitempty"`
	CurrentKernel struct {
		Sysname string `json:"sysname"`
		Release string `json:"release"`
		Version string `json:"version"`
		Machine string `json:"machine"`
	} `json:"current-kernel"`
	BootInfo struct {
		Mode       string `json:"mode"`
		SecureBoot Bool01 `json:"secureboot"`
	} `json:"boot-info"`
}

// NodeStatus returns GET /nodes/{node}/status.
func (c *Client) NodeStatus(ctx context.Context, node string) (*NodeStatus, error) {
	var out NodeStatus
	if err := c.Get(ctx, "/nodes/"+url.PathEscape(node)+"/status", nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
