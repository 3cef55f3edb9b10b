// Package seed fills a test database with many applications, shaped like a
// sales team's, for the benchmarks that measure the portal at scale (the
// dashboard, start-up).
package seed

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Applications inserts reps sales reps (rep1@bench.example, ...) and n
// applications spread over them, in one INSERT ... SELECT: names drawn from
// word lists (so a search for "fern" matches about 5% of them), every
// status, two years of creation dates, updates up to a month later, 2%
// soft-deleted, and a draft of about 2 kB shaped like a real one with sealed
// personal data.
func Applications(ctx context.Context, pool *pgxpool.Pool, n, reps int) error {
	if _, err := pool.Exec(ctx, `
INSERT INTO users (id, email, name, role, password_hash)
SELECT gen_random_uuid(), 'rep' || k || '@bench.example', 'Bench Rep ' || k, 'sales_rep', 'x'
FROM generate_series(1, $1::int) AS k`, reps); err != nil {
		return fmt.Errorf("seed reps: %w", err)
	}
	if _, err := pool.Exec(ctx, `
WITH reps AS (
  SELECT id, (row_number() OVER (ORDER BY email)) - 1 AS k FROM users WHERE email LIKE 'rep%@bench.example'
), words AS (
  SELECT ARRAY['Blue','Golden','Red','Silver','Green','Happy','Urban','Coastal','Mountain','River',
               'Sunny','Maple','Cedar','Harbor','Prairie','Summit','Copper','Iron','Velvet','Oak'] AS a,
         ARRAY['Fern','Bean','Wrench','Bakery','Bikes','Books','Salon','Garage','Kitchen','Market',
               'Studio','Florist','Dental','Fitness','Tailor','Pharmacy','Brewing','Hardware','Pets','Diner'] AS b,
         ARRAY['LLC','Inc','Co','Corp','Partners','Group'] AS c,
         ARRAY['Jane','John','Maria','Wei','Ahmed','Olga','Luis','Priya','Sam','Keiko'] AS f,
         ARRAY['Doe','Smith','Garcia','Chen','Khan','Ivanova','Lopez','Patel','Brown','Sato'] AS l
)
INSERT INTO applications (id, owner_id, status, legal_name, dba, contact_name, contact_email, draft, version, created_at, updated_at, deleted_at)
SELECT gen_random_uuid(), r.id,
  (ARRAY['draft','draft','draft','draft','needs_attention','submitting','linked','linked'])[1 + n % 8],
  legal, dba, contact, lower(replace(contact, ' ', '.')) || n || '@mail.example',
  jsonb_build_object(
    'business', jsonb_build_object('legal_name', legal, 'dba', dba, 'entity_type', 'llc',
      'tin', 'v1.bench.' || encode(sha256(('tin' || n)::bytea), 'base64') || encode(sha256(('t2' || n)::bytea), 'base64'),
      'incorporation_date', '2015-06-01', 'incorporation_state', 'CA',
      'address', jsonb_build_object('line1', n || ' Market St', 'line2', '', 'city', 'San Francisco', 'state', 'CA', 'postal_code', '94105'),
      'phone', '(415) 555-0100', 'email', 'hello' || n || '@shop.example', 'website', 'https://shop' || n || '.example',
      'goods_and_services', 'Retail goods and services', 'mcc', '5999', 'years_in_business', '6',
      'monthly_volume', '45000.00', 'average_ticket', '12.50', 'highest_ticket', '250.00',
      'card_present_pct', '80', 'keyed_pct', '5', 'ecommerce_pct', '15'),
    'owners', jsonb_build_array(jsonb_build_object('id', gen_random_uuid(), 'first_name', split_part(contact, ' ', 1),
      'last_name', split_part(contact, ' ', 2), 'title', 'Owner', 'ownership_pct', '100', 'date_of_birth', '1980-04-02',
      'ssn', 'v1.bench.' || encode(sha256(('ssn' || n)::bytea), 'base64') || encode(sha256(('s2' || n)::bytea), 'base64'),
      'address', jsonb_build_object('line1', '1 Home Way', 'line2', '', 'city', 'Oakland', 'state', 'CA', 'postal_code', '94601'),
      'phone', '510-555-0199', 'email', 'owner' || n || '@mail.example', 'is_control_person', true)),
    'bank', jsonb_build_object('holder_name', legal, 'routing_number', '011401533', 'account_type', 'checking',
      'account_number', 'v1.bench.' || encode(sha256(('acct' || n)::bytea), 'base64') || encode(sha256(('a2' || n)::bytea), 'base64')),
    'contact', jsonb_build_object('name', contact, 'email', 'contact' || n || '@mail.example', 'phone', ''),
    'notes', 'Met at the trade show; follow up about terminals. Ref ' || md5(n::text)),
  1 + n % 7, created, created + get_byte(h, 6) * interval '3 hours',
  CASE WHEN n % 50 = 0 THEN created + interval '1 day' END
FROM generate_series(1, $1::int) AS n
CROSS JOIN words
JOIN reps r ON r.k = n % $2::int
CROSS JOIN LATERAL (SELECT decode(md5(n::text), 'hex') AS h) AS hash
CROSS JOIN LATERAL (SELECT
  words.a[1 + get_byte(h, 0) % 20] || ' ' || words.b[1 + get_byte(h, 1) % 20] || ' ' || words.c[1 + get_byte(h, 2) % 6] AS legal,
  CASE WHEN get_byte(h, 3) % 4 = 0 THEN '' ELSE words.a[1 + get_byte(h, 0) % 20] || ' ' || words.b[1 + get_byte(h, 1) % 20] || ' ' || (n % 997) END AS dba,
  words.f[1 + get_byte(h, 4) % 10] || ' ' || words.l[1 + get_byte(h, 5) % 10] AS contact,
  timestamptz '2024-11-21 00:00:00+00' + (n * interval '631 seconds') AS created) AS v`, n, reps); err != nil {
		return fmt.Errorf("seed applications: %w", err)
	}
	return nil
}

// Vacuum analyzes the seeded tables and waits (up to a minute) until VACUUM has
// marked the applications table's pages all-visible, as autovacuum keeps them
// in a running portal: the dashboard's index-only scans depend on it. On a
// cluster shared with other tests an older open transaction elsewhere can
// hold that back; it then returns false and the figures show the slower,
// "just bulk-loaded" case.
func Vacuum(ctx context.Context, pool *pgxpool.Pool) (pages, visible int64, err error) {
	deadline := time.Now().Add(time.Minute)
	tick := time.NewTicker(2 * time.Second)
	defer tick.Stop()
	for {
		for _, table := range []string{"applications", "users"} {
			if _, err := pool.Exec(ctx, "VACUUM ANALYZE "+table); err != nil {
				return 0, 0, err
			}
		}
		if err := pool.QueryRow(ctx, `SELECT relpages, relallvisible FROM pg_class WHERE relname = 'applications'`).Scan(&pages, &visible); err != nil {
			return 0, 0, err
		}
		if visible*100 >= pages*99 || time.Now().After(deadline) {
			return pages, visible, nil
		}
		<-tick.C
	}
}
