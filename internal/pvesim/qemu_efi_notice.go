package pvesim

// efiCertNotice is how a release's vm_start_nolock (qemu-server
// src/PVE/QemuServer.pm check_efi_vars) tells about an EFI disk with
// pre-enrolled keys that lacks the newest Microsoft certificates, which
// OVMF.pm should_enroll_ms_2023_cert recognises by a missing ms-cert
// marker (pveProfile.efiMSCert: "2023" in qemu-server 9.1.3, "2023k" since
// 3736160d, 1d54121c on the bookworm branch).
type efiCertNotice int

const (
	// efiNoticeWindowsOnly is qemu-server 9.1.3 (the 9.1 profile): only a
	// win10 or win11 guest is checked, and the notice, about the one
	// Microsoft UEFI CA 2023 certificate, is printed. e51998c1 ("vm start:
	// check efi: always check for certificates when pre-enrolled-keys=1",
	// 9.1.5) dropped the OS condition.
	efiNoticeWindowsOnly efiCertNotice = iota
	// efiNoticePrinted is qemu-server 8.4.6 (the 8.4 profile, stable-bookworm
	// 984931c7 and 89275934): every guest is checked and the notice about
	// all 2023 certificates is printed; a print is not a warning, so the
	// task still ends OK.
	efiNoticePrinted
	// efiNoticeWarned is qemu-server 9.1.10 (the 9.2 profile): 53495177
	// ("check efi vars: promote message about missing MS 2023 certs to
	// warning") makes the first sentence a log_warn, counted in the task's
	// WARNINGS; the rest is printed.
	efiNoticeWarned
)

// checkEFIVars is check_efi_vars, run by vm_start_nolock for an OVMF VM
// once its volumes are active.
// qemu-server src/PVE/QemuServer.pm check_efi_vars (8.4.6 on stable-bookworm,
// 9.1.3 and 9.1.10 on master); src/PVE/QemuServer/OVMF.pm
// should_enroll_ms_2023_cert.
func (s *Sim) checkEFIVars(t *Task, g *Guest) {
	if g.IsTemplate() {
		return
	}
	notice := s.pve.efiCertNotice
	if ostype := g.Config["ostype"]; notice == efiNoticeWindowsOnly && ostype != "win10" && ostype != "win11" {
		return
	}
	d, ok := s.cluster.conf.parseDrive("efidisk0", g.Config["efidisk0"])
	if !ok || d["pre-enrolled-keys"] != "1" || d["ms-cert"] == s.pve.efiMSCert {
		return
	}
	vmid := itoa(g.VMID)
	switch notice {
	case efiNoticeWindowsOnly:
		for _, line := range []string{
			"EFI disk without 'ms-cert=2023' option, suggesting that the Microsoft UEFI 2023" +
				" certificate is not enrolled yet. The UEFI 2011 certificate expires in June 2026!",
			"While the VM is shut down, run 'qm enroll-efi-keys " + vmid + "' to enroll it.",
			"If the VM uses BitLocker, run the following command inside Windows Powershell:",
			"  manage-bde -protectors -disable <drive>",
			"for each drive with BitLocker (for example, <drive> could be 'C:').",
		} {
			t.Note("%s", line)
		}
		return
	case efiNoticePrinted:
		for _, line := range []string{
			"EFI disk without 'ms-cert=2023k' option, suggesting that not all UEFI 2023",
			"certificates from Microsoft are enrolled yet. The UEFI 2011 certificates expire",
			"in June 2026! The new certificates are required for secure boot update for Windows",
			"and common Linux distributions. Use 'Disk Action > Enroll Updated Certificates'",
			"in the UI or, while the VM is shut down, run 'qm enroll-efi-keys " + vmid + "' to enroll",
			"the new certificates.",
		} {
			t.Note("%s", line)
		}
	case efiNoticeWarned:
		// log_warn prints "WARN: " and the message, whose second line
		// follows as its own log line.
		t.Warn("EFI disk without 'ms-cert=2023k' option, suggesting that not all UEFI 2023")
		for _, line := range []string{
			"certificates from Microsoft are enrolled yet.",
			"The UEFI 2011 certificates expire in June 2026! The new certificates are required",
			"for secure boot update for Windows and common Linux distributions.",
			"Use 'Disk Action > Enroll Updated Certificates' in the UI or, while the VM is",
			"shut down, run 'qm enroll-efi-keys " + vmid + "' to enroll the new certificates.",
		} {
			t.Note("%s", line)
		}
	}
	// Both 2023k releases end with the same BitLocker advice, after an
	// empty line.
	for _, line := range []string{
		"",
		"For Windows with BitLocker, run the following command inside Powershell:",
		"  manage-bde -protectors -disable <drive>",
		"for each drive with BitLocker (for example, <drive> could be 'C:').",
		"This is required for each drive with BitLocker before proceeding with enrollment.",
		"Otherwise, you will be prompted for the BitLocker recovery key on the next boot.",
	} {
		t.Note("%s", line)
	}
}
