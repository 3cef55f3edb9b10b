package auth

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/payportal/portal/internal/models"
	"github.com/payportal/portal/internal/testutil/testdb"
)

// ByID reads the user with its own column list: it must load every field of
// models.User, as GORM's Take does, so a field added to the model needs its column
// added to userColumns (and to the Scan of ByID).
func TestByIDLoadsEveryColumn(t *testing.T) {
	t.Parallel()
	if n, cols := reflect.TypeFor[models.User]().NumField(), len(strings.Split(userColumns, ",")); n != cols {
		t.Fatalf("models.User has %d fields, userColumns lists %d columns", n, cols)
	}
	db := testdb.New(t)
	now := time.Now().UTC().Truncate(time.Microsecond)
	secret, step := "sealed-secret", int64(12345)
	u := &models.User{
		ID: uuid.New(), Email: "every@example.com", Name: "Every Column", Role: models.RoleAdmin, PasswordHash: "hash",
		Active: true, MustChangePassword: true, SessionVersion: 7, MFASecret: &secret, MFAEnabledAt: &now, MFALastStep: step,
		TimeZone:  "America/Los_Angeles",
		CreatedAt: now.Add(-time.Hour), UpdatedAt: now, DeactivatedAt: &now,
	}
	if err := db.Gorm.Create(u).Error; err != nil {
		t.Fatal(err)
	}
	var want models.User
	if err := db.Gorm.Where("id = ?", u.ID).Take(&want).Error; err != nil {
		t.Fatal(err)
	}
	got, err := NewStore(db.Gorm).ByID(context.Background(), u.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(*got, want) {
		t.Fatalf("ByID read\n%+v\nGORM reads\n%+v", *got, want)
	}
	v := reflect.ValueOf(*got)
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			t.Errorf("field %s was not read", v.Type().Field(i).Name)
		}
	}
	// Made on a transaction, it reads inside it.
	err = db.Gorm.Transaction(func(tx *gorm.DB) error {
		if err := tx.Model(&models.User{}).Where("id = ?", u.ID).Update("name", "Renamed").Error; err != nil {
			return err
		}
		in, err := NewStore(tx).ByID(context.Background(), u.ID)
		if err == nil && in.Name != "Renamed" {
			t.Errorf("inside the transaction ByID read %q", in.Name)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewStore(db.Gorm).ByID(context.Background(), uuid.New()); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("unknown id: %v, want models.ErrNotFound", err)
	}
}
