package pvesim

import (
	"net/http"
	"sort"
)

// API tokens: pve-access-control src/PVE/API2/User.pm token_index,
// read_token, generate_token, update_token_info and remove_token, over the
// token lines of user.cfg (User.Tokens) and the secrets of priv/token.cfg
// (authState.tokens, src/PVE/TokenConfig.pm). Every method is ['or',
// ['userid-param', 'self'], ['userid-group', ['User.Modify']]]: a token
// is not its user, so it manages tokens only with User.Modify.

func (s *Sim) registerAccessTokenRoutes() {
	s.handle(http.MethodGet, "/access/users/{userid}/token", route{check: selfOrUserModify, handle: listTokens})
	s.handle(http.MethodGet, "/access/users/{userid}/token/{tokenid}", route{check: selfOrUserModify, handle: readToken})
	s.handle(http.MethodPost, "/access/users/{userid}/token/{tokenid}", route{check: selfOrUserModify, handle: s.generateToken})
	s.handle(http.MethodPut, "/access/users/{userid}/token/{tokenid}", route{check: selfOrUserModify, handle: s.updateToken})
	s.handle(http.MethodDelete, "/access/users/{userid}/token/{tokenid}", route{check: selfOrUserModify, handle: s.removeToken})
}

// listTokens is pve-access-control src/PVE/API2/User.pm token_index: each
// token as user.cfg holds it with its tokenid. PVE lists a Perl hash (no
// order); the simulator sorts by id.
func listTokens(c *call) (any, error) {
	u, err := checkUserExist(c.cluster.Access, c.str("userid"))
	if err != nil {
		return nil, err
	}
	out := []map[string]any{}
	names := make([]string, 0, len(u.Tokens))
	for name := range u.Tokens {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		entry := tokenData(u.Tokens[name])
		entry["tokenid"] = name
		out = append(out, entry)
	}
	return out, nil
}

// readToken is pve-access-control src/PVE/API2/User.pm read_token.
func readToken(c *call) (any, error) {
	_, t, err := checkTokenExist(c.cluster.Access, c.str("userid"), c.str("tokenid"))
	if err != nil {
		return nil, err
	}
	return tokenData(t), nil
}

// generateToken is pve-access-control src/PVE/API2/User.pm generate_token:
// a new token with a new secret (TokenConfig.pm generate_token: a UUID),
// privilege-separated unless privsep is 0. The answer's info is the token
// as the method built it, not as user.cfg reads it back: the parameters
// as given (strings, as RESTHandler.pm handle untaints them), privsep 1
// when not given, expire only when given, the comment only when true.
func (s *Sim) generateToken(c *call) (any, error) {
	a := c.cluster.Access
	userid, tokenid := c.str("userid"), c.str("tokenid")
	u, err := checkUserExist(a, userid)
	if err != nil {
		return nil, err
	}
	if u.Tokens[tokenid] != nil {
		// pve-access-control src/PVE/API2/User.pm generate_token
		return nil, paramError(map[string]string{"tokenid": "Token already exists."})
	}
	fullID := userid + "!" + tokenid
	t := &Token{Privsep: true}
	info := map[string]any{"privsep": 1}
	if v, ok := c.param("privsep"); ok {
		t.Privsep = v == "1"
		info["privsep"] = v
	}
	if v, ok := c.param("expire"); ok {
		t.Expire = epochParam(v)
		info["expire"] = v
	}
	if v := c.str("comment"); perlTruthy(v) {
		t.Comment = userCfgText(v)
		info["comment"] = v
	}
	if u.Tokens == nil {
		u.Tokens = map[string]*Token{}
	}
	u.Tokens[tokenid] = t
	value := s.newTokenSecret(userid, fullID)
	return map[string]any{"info": info, "value": value, "full-tokenid": fullID}, nil
}

// newTokenSecret is TokenConfig.pm generate_token: a new UUID replaces the
// token's secret in priv/token.cfg.
func (s *Sim) newTokenSecret(userid, fullID string) string {
	value := s.newUUID()
	s.auth.tokens[fullID] = apiToken{user: userid, id: fullID, secret: value}
	return value
}

// updateToken is pve-access-control src/PVE/API2/User.pm
// update_token_info: privsep, expire and comment as given (an empty
// comment removes it), delete removes the comment (the only deletable
// option), regenerate (not in PVE 8.4's schema) replaces the secret and answers it with
// the full id. The answer is the token as the method changed it: user.cfg's
// values, replaced by the parameters as given (strings).
func (s *Sim) updateToken(c *call) (any, error) {
	a := c.cluster.Access
	userid, tokenid := c.str("userid"), c.str("tokenid")
	_, t, err := checkTokenExist(a, userid, tokenid)
	if err != nil {
		return nil, err
	}
	deletes := splitList(c.str("delete"))
	for _, k := range deletes {
		if k != "comment" {
			// pve-access-control src/PVE/API2/User.pm update_token_info,
			// inside lock_user_config.
			return nil, wrapLockError("updating token info failed",
				paramError(map[string]string{"delete": "unknown option '" + k + "'"}))
		}
	}
	res := tokenData(t)
	if v, ok := c.param("privsep"); ok {
		t.Privsep = v == "1"
		res["privsep"] = v
	}
	if v, ok := c.param("expire"); ok {
		t.Expire = epochParam(v)
		res["expire"] = v
	}
	if v, ok := c.param("comment"); ok {
		t.Comment = userCfgText(v)
		res["comment"] = v
	}
	if res["comment"] == "" {
		delete(res, "comment")
	}
	if len(deletes) > 0 {
		t.Comment = ""
		delete(res, "comment")
	}
	if c.boolParam("regenerate") {
		fullID := userid + "!" + tokenid
		res["value"] = s.newTokenSecret(userid, fullID)
		res["full-tokenid"] = fullID
	}
	return res, nil
}

// removeToken is pve-access-control src/PVE/API2/User.pm remove_token:
// the token line and its secret (TokenConfig.pm delete_token); its ACL
// entries go with it (dropToken).
func (s *Sim) removeToken(c *call) (any, error) {
	a := c.cluster.Access
	userid, tokenid := c.str("userid"), c.str("tokenid")
	u, _, err := checkTokenExist(a, userid, tokenid)
	if err != nil {
		return nil, err
	}
	delete(u.Tokens, tokenid)
	s.dropToken(a, userid+"!"+tokenid)
	return nil, nil
}
