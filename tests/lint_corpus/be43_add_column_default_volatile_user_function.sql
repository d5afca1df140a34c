-- expect: unsafe add-column-volatile-default
-- doc: https://www.postgresql.org/docs/current/sql-createfunction.html (VOLATILE is the default; a plpgsql function is never inlined, so the default stays a volatile call); sql-altertable.html Notes (ADD COLUMN with a volatile DEFAULT rewrites the table)
-- verified: PG15+16: referrals and referrals_pkey got new relfilenodes
-- given: CREATE TABLE referrals (id bigint PRIMARY KEY, inviter_id bigint NOT NULL);
CREATE FUNCTION default_referral_code() RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  RETURN 'REF-' || upper(substr(md5(random()::text), 1, 8));
END
$$;
ALTER TABLE referrals ADD COLUMN code text DEFAULT default_referral_code();
