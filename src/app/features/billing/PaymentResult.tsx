import { useEffect, useRef } from "react";
import { useTranslation } from "react-i18next";
import { StatusView } from "../../components/ui/StatusView";
import { billingApi, usePayment } from "./api";
import { day, failureKey } from "./format";

type Props = {
  paymentId: number;
  /** The checkout sent the driver back without paying: end the session. */
  canceled: boolean;
  /** Once, when the payment is known to be successful (e.g. to reload the user). */
  onSuccess?: () => void;
};

/**
 * The state of a payment after the checkout, from our own row (never from the return URL):
 * processing (read again every 2 s until an event settles it), successful, failed or refunded.
 */
export function PaymentResult({ paymentId, canceled, onSuccess }: Props) {
  const { t } = useTranslation("billing");
  const { data, error, mutate } = usePayment(paymentId);
  const cancelSent = useRef(false);
  const successSeen = useRef(false);
  const status = data?.payment.status;

  useEffect(() => {
    if (!canceled || status !== "processing" || cancelSent.current) return;
    cancelSent.current = true;
    billingApi.cancel(paymentId).then(
      (answer) => void mutate(answer, { revalidate: false }),
      () => void mutate(),
    );
  }, [canceled, status, paymentId, mutate]);

  useEffect(() => {
    if (status === "successful" && !successSeen.current) {
      successSeen.current = true;
      onSuccess?.();
    }
  }, [status, onSuccess]);

  if (error) return <StatusView kind="error" compact title={t("result.notFound")} onRetry={() => void mutate()} />;
  if (!data) return <StatusView kind="loading" compact title={t("result.checking")} />;
  const payment = data.payment;
  switch (payment.status) {
    case "processing":
      return (
        <div className="callout payment-result" role="status" data-status="processing">
          <span className="spinner" aria-hidden="true" />
          <span>{canceled ? t("result.canceling") : t("result.processing")}</span>
        </div>
      );
    case "successful":
      return (
        <div className="form-success payment-result" role="status" data-status="successful">
          <strong>{t("result.successful")}</strong> {t("result.added", { count: payment.days, date: day(payment.expirationAt) })}
        </div>
      );
    case "refunded":
      return (
        <div className="notice payment-result" role="status" data-status="refunded">
          {t("result.refunded")}
        </div>
      );
    default:
      return (
        <div className="alert payment-result" role="alert" data-status="failed">
          <strong>{t("result.failed")}</strong> {t(failureKey(payment.failureCode))} {t("result.tryAgain")}
        </div>
      );
  }
}
