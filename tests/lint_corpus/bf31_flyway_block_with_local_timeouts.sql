-- expect: safe
-- doc: https://www.postgresql.org/docs/current/runtime-config-client.html#GUC-LOCK-TIMEOUT (SET LOCAL lasts until the end of the transaction); https://www.postgresql.org/docs/current/sql-altertable.html (ADD COLUMN nullable without default, catalog-only; FK on a new column without default is added valid without a scan since every value is NULL)
-- verified: PG15: block commits; inside it SHOW lock_timeout = 3s, statement_timeout = 15min; carts relfilenode unchanged; the new FK is convalidated = true with no rows checked
-- given: CREATE TABLE carts (id bigint PRIMARY KEY, user_id bigint, created_at timestamptz NOT NULL DEFAULT now());
-- given: CREATE TABLE coupons (id bigint PRIMARY KEY, code text NOT NULL UNIQUE);
-- V42__cart_coupons.sql
BEGIN;
SET LOCAL lock_timeout = '3s';
SET LOCAL statement_timeout = '15min';

ALTER TABLE public.carts ADD COLUMN coupon_id bigint REFERENCES public.coupons (id);
ALTER TABLE public.carts ADD COLUMN coupon_applied_at timestamptz;

CREATE TABLE public.coupon_redemptions (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    coupon_id   bigint NOT NULL REFERENCES public.coupons (id),
    cart_id     bigint NOT NULL REFERENCES public.carts (id),
    redeemed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX coupon_redemptions_coupon_id_idx ON public.coupon_redemptions (coupon_id);
COMMIT;
