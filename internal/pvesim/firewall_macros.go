package pvesim

import (
	"sort"
	"strings"
)

// The firewall's macros: named rule templates a rule can use instead of
// its own protocol and ports (pve-firewall src/PVE/Firewall.pm
// $pve_fw_macros, $pve_ipv6fw_macros, init_firewall_macros). Every
// template's action is the rule's own; a template gives the protocol and,
// for most, the ports. The data is PVE's, the table our own.

// firewallMacroRule is one template line of a macro.
type firewallMacroRule struct {
	proto, dport, sport string
}

// firewallMacro is one macro: its name as PVE spells it, its description,
// the IP version it is limited to (0: both), its templates, and the
// templates that replace them for an IPv6 rule.
type firewallMacro struct {
	name      string
	descr     string
	ipversion int
	rules     []firewallMacroRule
	v6rules   []firewallMacroRule
}

var firewallMacros = []firewallMacro{
	{name: "Amanda", descr: "Amanda Backup", rules: []firewallMacroRule{{proto: "udp", dport: "10080"}, {proto: "tcp", dport: "10080"}}},
	{name: "Auth", descr: "Auth (identd) traffic", rules: []firewallMacroRule{{proto: "tcp", dport: "113"}}},
	{name: "BGP", descr: "Border Gateway Protocol traffic", rules: []firewallMacroRule{{proto: "tcp", dport: "179"}}},
	{name: "BitTorrent", descr: "BitTorrent traffic for BitTorrent 3.1 and earlier", rules: []firewallMacroRule{{proto: "tcp", dport: "6881:6889"}, {proto: "udp", dport: "6881"}}},
	{name: "BitTorrent32", descr: "BitTorrent traffic for BitTorrent 3.2 and later", rules: []firewallMacroRule{{proto: "tcp", dport: "6881:6999"}, {proto: "udp", dport: "6881"}}},
	{name: "Ceph", descr: "Ceph Storage Cluster traffic (Ceph Monitors, OSD & MDS Daemons)", rules: []firewallMacroRule{{proto: "tcp", dport: "6789"}, {proto: "tcp", dport: "3300"}, {proto: "tcp", dport: "6800:7300"}}},
	{name: "Citrix", descr: "Citrix/ICA traffic (ICA, ICA Browser, CGP)", rules: []firewallMacroRule{{proto: "tcp", dport: "1494"}, {proto: "udp", dport: "1604"}, {proto: "tcp", dport: "2598"}}},
	{name: "CVS", descr: "Concurrent Versions System pserver traffic", rules: []firewallMacroRule{{proto: "tcp", dport: "2401"}}},
	{name: "DAAP", descr: "Digital Audio Access Protocol traffic (iTunes, Rythmbox daemons)", rules: []firewallMacroRule{{proto: "tcp", dport: "3689"}, {proto: "udp", dport: "3689"}}},
	{name: "DCC", descr: "Distributed Checksum Clearinghouse spam filtering mechanism", rules: []firewallMacroRule{{proto: "tcp", dport: "6277"}}},
	{name: "DHCPfwd", descr: "Forwarded DHCP traffic", rules: []firewallMacroRule{{proto: "udp", dport: "67:68", sport: "67:68"}}},
	{name: "Distcc", descr: "Distributed Compiler service", rules: []firewallMacroRule{{proto: "tcp", dport: "3632"}}},
	{name: "DNS", descr: "Domain Name System traffic (upd and tcp)", rules: []firewallMacroRule{{proto: "udp", dport: "53"}, {proto: "tcp", dport: "53"}}},
	{name: "Finger", descr: "Finger protocol (RFC 742)", rules: []firewallMacroRule{{proto: "tcp", dport: "79"}}},
	{name: "FTP", descr: "File Transfer Protocol", rules: []firewallMacroRule{{proto: "tcp", dport: "21"}}},
	{name: "Git", descr: "Git distributed revision control traffic", rules: []firewallMacroRule{{proto: "tcp", dport: "9418"}}},
	{name: "GNUnet", descr: "GNUnet secure peer-to-peer networking traffic", rules: []firewallMacroRule{{proto: "tcp", dport: "2086"}, {proto: "udp", dport: "2086"}, {proto: "tcp", dport: "1080"}, {proto: "udp", dport: "1080"}}},
	{name: "GRE", descr: "Generic Routing Encapsulation tunneling protocol", rules: []firewallMacroRule{{proto: "47"}}},
	{name: "HKP", descr: "OpenPGP HTTP key server protocol traffic", rules: []firewallMacroRule{{proto: "tcp", dport: "11371"}}},
	{name: "HTTP", descr: "Hypertext Transfer Protocol (WWW)", rules: []firewallMacroRule{{proto: "tcp", dport: "80"}}},
	{name: "HTTPS", descr: "Hypertext Transfer Protocol (WWW) over SSL", rules: []firewallMacroRule{{proto: "tcp", dport: "443"}}},
	{name: "ICPV2", descr: "Internet Cache Protocol V2 (Squid) traffic", rules: []firewallMacroRule{{proto: "udp", dport: "3130"}}},
	{name: "ICQ", descr: "AOL Instant Messenger traffic", rules: []firewallMacroRule{{proto: "tcp", dport: "5190"}}},
	{name: "IMAP", descr: "Internet Message Access Protocol", rules: []firewallMacroRule{{proto: "tcp", dport: "143"}}},
	{name: "IMAPS", descr: "Internet Message Access Protocol over SSL", rules: []firewallMacroRule{{proto: "tcp", dport: "993"}}},
	{name: "IPIP", descr: "IPIP capsulation traffic", rules: []firewallMacroRule{{proto: "94"}}},
	{name: "IPsec", descr: "IPsec traffic", rules: []firewallMacroRule{{proto: "udp", dport: "500", sport: "500"}, {proto: "50"}}},
	{name: "IPsecah", descr: "IPsec authentication (AH) traffic", rules: []firewallMacroRule{{proto: "udp", dport: "500", sport: "500"}, {proto: "51"}}},
	{name: "IPsecnat", descr: "IPsec traffic and Nat-Traversal", rules: []firewallMacroRule{{proto: "udp", dport: "500"}, {proto: "udp", dport: "4500"}, {proto: "50"}}},
	{name: "IRC", descr: "Internet Relay Chat traffic", rules: []firewallMacroRule{{proto: "tcp", dport: "6667"}}},
	{name: "Jetdirect", descr: "HP Jetdirect printing", rules: []firewallMacroRule{{proto: "tcp", dport: "9100"}}},
	{name: "L2TP", descr: "Layer 2 Tunneling Protocol traffic", rules: []firewallMacroRule{{proto: "udp", dport: "1701"}}},
	{name: "LDAP", descr: "Lightweight Directory Access Protocol traffic", rules: []firewallMacroRule{{proto: "tcp", dport: "389"}}},
	{name: "LDAPS", descr: "Secure Lightweight Directory Access Protocol traffic", rules: []firewallMacroRule{{proto: "tcp", dport: "636"}}},
	{name: "Mail", descr: "Mail traffic (SMTP, SMTPS, Submission)", rules: []firewallMacroRule{{proto: "tcp", dport: "25"}, {proto: "tcp", dport: "465"}, {proto: "tcp", dport: "587"}}},
	{name: "MDNS", descr: "Multicast DNS", rules: []firewallMacroRule{{proto: "udp", dport: "5353"}}},
	{name: "MSNP", descr: "Microsoft Notification Protocol", rules: []firewallMacroRule{{proto: "tcp", dport: "1863"}}},
	{name: "MSSQL", descr: "Microsoft SQL Server", rules: []firewallMacroRule{{proto: "tcp", dport: "1433"}}},
	{name: "Munin", descr: "Munin networked resource monitoring traffic", rules: []firewallMacroRule{{proto: "tcp", dport: "4949"}}},
	{name: "MySQL", descr: "MySQL server", rules: []firewallMacroRule{{proto: "tcp", dport: "3306"}}},
	{name: "NNTP", descr: "NNTP traffic (Usenet).", rules: []firewallMacroRule{{proto: "tcp", dport: "119"}}},
	{name: "NNTPS", descr: "Encrypted NNTP traffic (Usenet)", rules: []firewallMacroRule{{proto: "tcp", dport: "563"}}},
	{name: "NTP", descr: "Network Time Protocol (ntpd)", rules: []firewallMacroRule{{proto: "udp", dport: "123"}}},
	{name: "OpenVPN", descr: "OpenVPN traffic", rules: []firewallMacroRule{{proto: "udp", dport: "1194"}}},
	{name: "OSPF", descr: "OSPF multicast traffic", rules: []firewallMacroRule{{proto: "89"}}},
	{name: "PCA", descr: "Symantec PCAnywere (tm)", rules: []firewallMacroRule{{proto: "udp", dport: "5632"}, {proto: "tcp", dport: "5631"}}},
	{name: "Ping", descr: "ICMP echo request", rules: []firewallMacroRule{{proto: "icmp", dport: "echo-request"}}, v6rules: []firewallMacroRule{{proto: "icmpv6", dport: "echo-request"}}},
	{name: "PMG", descr: "Proxmox Mail Gateway web interface", rules: []firewallMacroRule{{proto: "tcp", dport: "8006"}}},
	{name: "POP3", descr: "POP3 traffic", rules: []firewallMacroRule{{proto: "tcp", dport: "110"}}},
	{name: "POP3S", descr: "Encrypted POP3 traffic", rules: []firewallMacroRule{{proto: "tcp", dport: "995"}}},
	{name: "PostgreSQL", descr: "PostgreSQL server", rules: []firewallMacroRule{{proto: "tcp", dport: "5432"}}},
	{name: "PPtP", descr: "Point-to-Point Tunneling Protocol", rules: []firewallMacroRule{{proto: "47"}, {proto: "tcp", dport: "1723"}}},
	{name: "Printer", descr: "Line Printer protocol printing", rules: []firewallMacroRule{{proto: "tcp", dport: "515"}}},
	{name: "Razor", descr: "Razor Antispam System", rules: []firewallMacroRule{{proto: "tcp", dport: "2703"}}},
	{name: "Rdate", descr: "Remote time retrieval (rdate)", rules: []firewallMacroRule{{proto: "tcp", dport: "37"}}},
	{name: "RDP", descr: "Microsoft Remote Desktop Protocol traffic", rules: []firewallMacroRule{{proto: "tcp", dport: "3389"}}},
	{name: "RIP", descr: "Routing Information Protocol (bidirectional)", rules: []firewallMacroRule{{proto: "udp", dport: "520"}}},
	{name: "RNDC", descr: "BIND remote management protocol", rules: []firewallMacroRule{{proto: "tcp", dport: "953"}}},
	{name: "Rsync", descr: "Rsync server", rules: []firewallMacroRule{{proto: "tcp", dport: "873"}}},
	{name: "SANE", descr: "SANE network scanning", rules: []firewallMacroRule{{proto: "tcp", dport: "6566"}}},
	{name: "SixXS", descr: "SixXS IPv6 Deployment and Tunnel Broker", rules: []firewallMacroRule{{proto: "tcp", dport: "3874"}, {proto: "udp", dport: "3740"}, {proto: "41"}, {proto: "udp", dport: "5072,8374"}}},
	{name: "SMB", descr: "Microsoft SMB traffic", rules: []firewallMacroRule{{proto: "udp", dport: "135,445"}, {proto: "udp", dport: "137:139"}, {proto: "udp", dport: "1024:65535", sport: "137"}, {proto: "tcp", dport: "135,139,445"}}},
	{name: "SMBswat", descr: "Samba Web Administration Tool", rules: []firewallMacroRule{{proto: "tcp", dport: "901"}}},
	{name: "SMTP", descr: "Simple Mail Transfer Protocol", rules: []firewallMacroRule{{proto: "tcp", dport: "25"}}},
	{name: "SMTPS", descr: "Encrypted Simple Mail Transfer Protocol", rules: []firewallMacroRule{{proto: "tcp", dport: "465"}}},
	{name: "SNMP", descr: "Simple Network Management Protocol", rules: []firewallMacroRule{{proto: "udp", dport: "161:162"}, {proto: "tcp", dport: "161"}}},
	{name: "SPAMD", descr: "Spam Assassin SPAMD traffic", rules: []firewallMacroRule{{proto: "tcp", dport: "783"}}},
	{name: "SPICEproxy", descr: "Proxmox VE SPICE display proxy traffic", rules: []firewallMacroRule{{proto: "tcp", dport: "3128"}}},
	{name: "Squid", descr: "Squid web proxy traffic", rules: []firewallMacroRule{{proto: "tcp", dport: "3128"}}},
	{name: "SSH", descr: "Secure shell traffic", rules: []firewallMacroRule{{proto: "tcp", dport: "22"}}},
	{name: "Submission", descr: "Mail message submission traffic", rules: []firewallMacroRule{{proto: "tcp", dport: "587"}}},
	{name: "SVN", descr: "Subversion server (svnserve)", rules: []firewallMacroRule{{proto: "tcp", dport: "3690"}}},
	{name: "Syslog", descr: "Syslog protocol (RFC 5424) traffic", rules: []firewallMacroRule{{proto: "udp", dport: "514"}, {proto: "tcp", dport: "514"}}},
	{name: "Telnet", descr: "Telnet traffic", rules: []firewallMacroRule{{proto: "tcp", dport: "23"}}},
	{name: "Telnets", descr: "Telnet over SSL", rules: []firewallMacroRule{{proto: "tcp", dport: "992"}}},
	{name: "TFTP", descr: "Trivial File Transfer Protocol traffic", rules: []firewallMacroRule{{proto: "udp", dport: "69"}}},
	{name: "Time", descr: "RFC 868 Time protocol", rules: []firewallMacroRule{{proto: "tcp", dport: "37"}}},
	{name: "Trcrt", descr: "Traceroute (for up to 30 hops) traffic", rules: []firewallMacroRule{{proto: "udp", dport: "33434:33524"}, {proto: "icmp", dport: "echo-request"}}, v6rules: []firewallMacroRule{{proto: "udp", dport: "33434:33524"}, {proto: "icmpv6", dport: "echo-request"}}},
	{name: "VNC", descr: "VNC traffic for VNC display's 0 - 99", rules: []firewallMacroRule{{proto: "tcp", dport: "5900:5999"}}},
	{name: "VNCL", descr: "VNC traffic from Vncservers to Vncviewers in listen mode", rules: []firewallMacroRule{{proto: "tcp", dport: "5500"}}},
	{name: "Web", descr: "WWW traffic (HTTP and HTTPS)", rules: []firewallMacroRule{{proto: "tcp", dport: "80"}, {proto: "tcp", dport: "443"}}},
	{name: "Webcache", descr: "Web Cache/Proxy traffic (port 8080)", rules: []firewallMacroRule{{proto: "tcp", dport: "8080"}}},
	{name: "Webmin", descr: "Webmin traffic", rules: []firewallMacroRule{{proto: "tcp", dport: "10000"}}},
	{name: "Whois", descr: "Whois (nicname, RFC 3912) traffic", rules: []firewallMacroRule{{proto: "tcp", dport: "43"}}},
	{name: "DHCPv6", descr: "DHCPv6 traffic", ipversion: 6, rules: []firewallMacroRule{{proto: "udp", dport: "546:547", sport: "546:547"}}},
	{name: "NeighborDiscovery", descr: "IPv6 neighbor solicitation, neighbor and router advertisement", ipversion: 6, rules: []firewallMacroRule{{proto: "icmpv6", dport: "router-solicitation"}, {proto: "icmpv6", dport: "router-advertisement"}, {proto: "icmpv6", dport: "neighbor-solicitation"}, {proto: "icmpv6", dport: "neighbor-advertisement"}}},
}

// firewallMacroByName finds a macro by its name in any case, as
// init_firewall_macros' $pve_fw_preferred_macro_names does.
var firewallMacroByName = func() map[string]*firewallMacro {
	m := make(map[string]*firewallMacro, len(firewallMacros))
	for i := range firewallMacros {
		m[strings.ToLower(firewallMacros[i].name)] = &firewallMacros[i]
	}
	return m
}()

// firewallMacroList is GET /cluster/firewall/macros (pve-firewall
// src/PVE/API2/Firewall/Cluster.pm get_macros). PVE lists them in Perl's
// hash order, which is random; the simulator sorts them by name.
func firewallMacroList(*call) (any, error) {
	out := make([]map[string]any, 0, len(firewallMacros))
	names := make([]string, 0, len(firewallMacros))
	byName := map[string]*firewallMacro{}
	for i := range firewallMacros {
		names = append(names, firewallMacros[i].name)
		byName[firewallMacros[i].name] = &firewallMacros[i]
	}
	sort.Strings(names)
	for _, n := range names {
		m := byName[n]
		descr := m.descr
		if descr == "" {
			descr = m.name
		}
		out = append(out, map[string]any{"macro": m.name, "descr": descr})
	}
	return out, nil
}
