// Times (seconds since 1970, UTC) as axis labels, as precise as the span they label needs.

/// `seconds` since 1970-01-01 UTC, spelled for an axis that spans `span` seconds: the time
/// of day to the second within an hour, to the minute within two days, the date and time
/// within a year, and the date beyond.
public func timeLabel(_ seconds: Double, span: Double) -> String {
    guard seconds.isFinite else { return "?" }
    let whole = Int(seconds.rounded(.down))
    let days = Int((Double(whole) / 86400).rounded(.down))
    let secondOfDay = whole - days * 86400
    let (year, month, day) = civilDate(daysSince1970: days)
    let time = pad(secondOfDay / 3600) + ":" + pad(secondOfDay / 60 % 60)
    if span < 3600 { return time + ":" + pad(secondOfDay % 60) }
    if span < 2 * 86400 { return time }
    let date = pad(month) + "-" + pad(day)
    if span < 366 * 86400 { return date + " " + time }
    return String(year) + "-" + date
}

/// Labels for a time axis along `scale`.
func timeLabels(_ scale: Scale) -> AxisLabels {
    let span = scale.upper - scale.lower
    return AxisLabels(low: timeLabel(scale.lower, span: span), middle: timeLabel(scale.value(at: 0.5), span: span),
                      high: timeLabel(scale.upper, span: span))
}

private func pad(_ n: Int) -> String { n < 10 ? "0" + String(n) : String(n) }

/// The proleptic Gregorian date of a day count (Howard Hinnant's `civil_from_days`).
private func civilDate(daysSince1970 days: Int) -> (year: Int, month: Int, day: Int) {
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let mp = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * mp + 2) / 5 + 1
    let month = mp < 10 ? mp + 3 : mp - 9
    return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
}
