-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (Notes: a non-volatile DEFAULT is evaluated once and stored in the catalog, no rewrite)
-- verified: PG15+16: referrals keeps its relfilenode, no seq scan; pg_attribute.atthasmissing = true for the new column
-- given: CREATE TABLE referrals (id bigint PRIMARY KEY, inviter_id bigint NOT NULL);
CREATE FUNCTION default_referral_tier() RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT 'bronze' $$;
ALTER TABLE referrals ADD COLUMN tier text NOT NULL DEFAULT default_referral_tier();
ALTER TABLE referrals ADD COLUMN enrolled_at timestamptz NOT NULL DEFAULT statement_timestamp();
