package pvesim

import (
	"net/http"
)

// SDN controllers: pve-network src/PVE/API2/Network/SDN/Controllers.pm over
// src/PVE/Network/SDN/Controllers/{Evpn,Bgp,Isis,Faucet}Plugin.pm.
// controllers.cfg is staged like zones: writes change the file, PUT
// /cluster/sdn copies it into the running config.
//
// Permissions, as the handlers declare them: the list shows a controller
// only with SDN.Audit or SDN.Allocate on /sdn/controllers/<id>; read needs
// SDN.Allocate on /sdn/controllers/{controller}; create, update and delete
// SDN.Allocate on /sdn/controllers.

// registerSDNExtraRoutes registers the SDN controllers, IPAMs, DNS servers
// and (9.x) fabrics.
func (s *Sim) registerSDNExtraRoutes() {
	s.registerSDNControllerRoutes()
	s.registerSDNPluginRoutes(sdnIpamKind)
	s.registerSDNPluginRoutes(sdnDNSKind)
	s.registerSDNFabricRoutes()
}

func (s *Sim) registerSDNControllerRoutes() {
	allocate := permission{path: "/sdn/controllers", privs: []string{"SDN.Allocate"}}
	s.handle(http.MethodGet, "/cluster/sdn/controllers", route{handle: s.listSDNControllers})
	s.handle(http.MethodGet, "/cluster/sdn/controllers/{controller}", route{
		perm:   permission{path: "/sdn/controllers/{controller}", privs: []string{"SDN.Allocate"}},
		handle: s.readSDNController,
	})
	s.handle(http.MethodPost, "/cluster/sdn/controllers", route{perm: allocate, handle: s.createSDNController})
	s.handle(http.MethodPut, "/cluster/sdn/controllers/{controller}", route{perm: allocate, handle: s.updateSDNController})
	s.handle(http.MethodDelete, "/cluster/sdn/controllers/{controller}", route{perm: allocate, handle: s.deleteSDNController})
}

// listSDNControllers is Controllers.pm index: the view the parameters ask
// for (pending=1, running=1 or the file), filtered by type and by the
// caller's privileges.
func (s *Sim) listSDNControllers(c *call) (any, error) {
	view := sdnViewOf(c)
	typ := c.str("type")
	out := []map[string]any{}
	for _, e := range c.cluster.SDN.View(SDNControllers, view) {
		if !c.can("/sdn/controllers/"+e.ID, true, "SDN.Audit", "SDN.Allocate") {
			continue
		}
		if typ != "" && e.Type() != typ {
			continue
		}
		out = append(out, s.sdnAnswer(SDNControllers, "controller", e, view))
	}
	return out, nil
}

// readSDNController is Controllers.pm read: one controller in the view
// asked for; sdn_controllers_config dies "sdn 'ID' does not exist" when the
// view lacks it (pve-network src/PVE/Network/SDN/Controllers.pm).
func (s *Sim) readSDNController(c *call) (any, error) {
	view := sdnViewOf(c)
	id := c.str("controller")
	e, ok := c.cluster.SDN.Entry(SDNControllers, id, view)
	if !ok {
		return nil, errorf("sdn '%s' does not exist", id)
	}
	return s.sdnAnswer(SDNControllers, "controller", e, view), nil
}

// sdnNotSimulatedControllerOptions are 9.1's route-map options, which
// reference route maps (out of the simulator's scope).
// not simulated: route-map-in and route-map-out
var sdnNotSimulatedControllerOptions = []string{"route-map-in", "route-map-out"}

// sdnxRefuseNotSimulated refuses the options of opts the request gives.
// not simulated: such options are refused with a text that says so.
func sdnxRefuseNotSimulated(params map[string]string, opts []string) error {
	for _, k := range opts {
		if _, ok := params[k]; ok {
			return errorf("pvesim does not simulate the SDN option '%s'", k)
		}
	}
	return nil
}

// createSDNController is pve-network src/PVE/API2/Network/SDN/Controllers.pm create: check_config outside the
// lock (its errors come as they are), then under lock_sdn_config the id
// check and the plugin's on_update_hook.
func (s *Sim) createSDNController(c *call) (any, error) {
	typ, id := c.str("type"), c.str("controller")
	params := sdnxRequestOptions(c, "type", "controller", "lock-token")
	if err := sdnxRefuseNotSimulated(params, sdnNotSimulatedControllerOptions); err != nil {
		return nil, err
	}
	opts, err := sdnxCheckConfig(c, sdnControllerTypes(s.pve.release)[typ], params, true)
	if err != nil {
		return nil, err
	}
	sd := c.cluster.SDN
	return nil, sdnxLocked(c, "create sdn controller object failed", func() error {
		if sd.Get(SDNControllers, id) != nil {
			return errorf("sdn controller object ID '%s' already defined", id)
		}
		obj := &SDNObject{Type: typ, Props: opts}
		if err := s.sdnControllerUpdateHook(c, id, sdnxCandidate(sd, SDNControllers, id, obj)); err != nil {
			return err
		}
		sd.Put(SDNControllers, id, obj)
		return nil
	})
}

// updateSDNController is pve-network src/PVE/API2/Network/SDN/Controllers.pm update: under lock_sdn_config the
// digest, the controller's existence, check_config, the deletions
// (delete_from_config), the new values and on_update_hook.
func (s *Sim) updateSDNController(c *call) (any, error) {
	id := c.str("controller")
	params := sdnxRequestOptions(c, "controller", "digest", "delete", "lock-token")
	if err := sdnxRefuseNotSimulated(params, sdnNotSimulatedControllerOptions); err != nil {
		return nil, err
	}
	sd := c.cluster.SDN
	return nil, sdnxLocked(c, "update sdn controller object failed", func() error {
		if err := sdnxAssertDigest(c, sd.Digest(SDNControllers)); err != nil {
			return err
		}
		cur := sd.Get(SDNControllers, id)
		if cur == nil {
			return errorf("sdn '%s' does not exist", id)
		}
		typeOpts := sdnControllerTypes(s.pve.release)[cur.Type]
		opts, err := sdnxCheckConfig(c, typeOpts, params, false)
		if err != nil {
			return err
		}
		obj := cur.clone()
		if del, ok := c.param("delete"); ok {
			if err := sdnxDeleteFromConfig(obj.Props, typeOpts, opts, del); err != nil {
				return err
			}
		}
		for k, v := range opts {
			obj.Props[k] = v
		}
		if err := s.sdnControllerUpdateHook(c, id, sdnxCandidate(sd, SDNControllers, id, obj)); err != nil {
			return err
		}
		sd.Put(SDNControllers, id, obj)
		return nil
	})
}

// deleteSDNController is pve-network src/PVE/API2/Network/SDN/Controllers.pm delete: under lock_sdn_config the
// controller's existence and its plugin's on_delete_hook against the
// staged zones.
func (s *Sim) deleteSDNController(c *call) (any, error) {
	id := c.str("controller")
	sd := c.cluster.SDN
	return nil, sdnxLocked(c, "delete sdn controller object failed", func() error {
		cur := sd.Get(SDNControllers, id)
		if cur == nil {
			return errorf("sdn '%s' does not exist", id)
		}
		// EvpnPlugin.pm and BgpPlugin.pm on_delete_hook: a zone that
		// names the controller keeps it (IsisPlugin's and FaucetPlugin's
		// do nothing). The die has no newline (suffix left out).
		if cur.Type == "evpn" || cur.Type == "bgp" {
			zones := sd.File(SDNZones).IDs
			for _, zid := range sortedKeys(zones) {
				if z := zones[zid]; z.Props["controller"] == id {
					return errorf("controller %s is used by %s", id, zid)
				}
			}
		}
		sd.Remove(SDNControllers, id)
		return nil
	})
}

// sdnControllerUpdateHook is the on_update_hook of the plugin of the
// controller id (pve-network src/PVE/Network/SDN/Controllers/*Plugin.pm), run on the controllers about to be written. The dies
// have no newline (suffix left out).
func (s *Sim) sdnControllerUpdateHook(c *call, id string, cfg map[string]*SDNObject) error {
	self := cfg[id]
	// countOthers counts the other controllers of the type (on the node
	// answering the request, when onLocalNode), failing once the count
	// passes limit, as the plugins' loops do.
	countOthers := func(typ string, onLocalNode bool, limit int, msg string) error {
		n := 0
		for _, oid := range sortedKeys(cfg) {
			o := cfg[oid]
			if oid == id || o.Type != typ {
				continue
			}
			if onLocalNode && o.Props["node"] != c.cluster.answeringNode().Name {
				continue
			}
			n++
			if n > limit {
				return errorf("%s", msg)
			}
		}
		return nil
	}
	switch self.Type {
	case "evpn":
		// pve-network src/PVE/Network/SDN/Controllers/EvpnPlugin.pm
		// on_update_hook: "1 evpn controller / 1 asn by server".
		if err := countOthers("evpn", false, 0, "only 1 global evpn controller can be defined"); err != nil {
			return err
		}
		// 9.x: the underlay is either the peers or a fabric (8.4 has no
		// fabric and requires peers).
		if s.pve.release != "8.4" && perlTruthy(self.Props["peers"]) == perlTruthy(self.Props["fabric"]) {
			return errorf("must have exactly one of peers / fabric defined")
		}
	case "bgp":
		// BgpPlugin.pm on_update_hook: counts the other bgp controllers
		// of the node that answers (PVE::INotify::nodename) and fails
		// past one of them, so a node can hold two.
		return countOthers("bgp", true, 1, "only 1 bgp controller can be defined")
	case "isis":
		// IsisPlugin.pm on_update_hook, the same count for isis.
		return countOthers("isis", true, 1, "only 1 bgp or isis controller can be defined")
	}
	return nil
}
