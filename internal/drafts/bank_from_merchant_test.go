package drafts

import (
	"net/url"
	"testing"
)

// A rep without the merchant's bank details leaves them to the merchant: the
// bank fields are no longer required, and nothing of them is sent upstream.
func TestBankLeftToMerchant(t *testing.T) {
	d := completeDraft(EntityLLC)
	d.Bank = Bank{}
	c := BuildChecklist(d, ready())
	if sec := c.Section(SectionBank); len(sec.Items) != 4 {
		t.Fatalf("empty bank section: %v", flatten(c))
	}

	d.Bank.FromMerchant = true
	if c := BuildChecklist(d, ready()); !c.Empty() {
		t.Fatalf("bank left to the merchant still listed: %v", flatten(c))
	}

}

func TestBankFromMerchantCheckboxTicksAndUnticks(t *testing.T) {
	var d Draft
	BindSection(SectionBank, url.Values{FieldBankFromMerchant: {"true"}}).Apply(&d)
	if !d.Bank.FromMerchant {
		t.Fatal("ticked box not saved")
	}
	// An unticked checkbox is absent from the form.
	BindSection(SectionBank, url.Values{"bank.holder_name": {"Blue Fern LLC"}}).Apply(&d)
	if d.Bank.FromMerchant || d.Bank.HolderName != "Blue Fern LLC" {
		t.Fatalf("after unticking: %+v", d.Bank)
	}
}
